// Package message owns the Message record, its ids, and the Store that
// keeps records.
//
// A Message record is the one JSON line kesoku writes for every tool result
// and every turn of a session. It is a leaf: it imports nothing of ours, so
// that the registry (whose ToolContext carries a Store), the runner and
// the agent loop can all speak of records without importing each other.
// Reading and writing records files is kesoku's own business, not a tool
// author's, and lives inside it.
package message

import (
	"context"
	"encoding/json"
	"time"
)

// Role says who produced a record.
type Role string

// The roles a record can have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	// RoleEval is kesoku eval's: the verdict on a case.
	RoleEval Role = "eval"
)

// Type says what a record holds.
type Type string

// The types a record can have.
const (
	TypeText       Type = "text"
	TypeToolCall   Type = "tool_call"
	TypeToolResult Type = "tool_result"
	// TypeVerdict is an eval case's verdict: whether the session did
	// what the case expects, check by check.
	TypeVerdict Type = "verdict"
)

// Status says whether the message was answered or cut short.
type Status string

// The statuses a record can have.
const (
	StatusResponded Status = "responded"
	StatusAborted   Status = "aborted"
	// StatusDeferred is a call that waits for a person's answer: the
	// policy asked, no one could answer, and --on-ask defer stopped the
	// run there (kesoku approve answers it, --resume runs it).
	StatusDeferred Status = "deferred"
)

// The answers kesoku approve puts on a deferred record (Record.Approval).
const (
	ApprovalApproved = "approved"
	ApprovalRefused  = "refused"
)

// ErrorKind classifies a failed tool call so that programs reading records
// can branch on the kind rather than on message text.
type ErrorKind string

// The error kinds a failed call is recorded with.
const (
	KindInvalidRequest ErrorKind = "invalid_request"
	KindUnknownTool    ErrorKind = "unknown_tool"
	KindInvalidArgs    ErrorKind = "invalid_args"
	KindToolError      ErrorKind = "tool_error"
	KindPanic          ErrorKind = "panic"
	KindTimeout        ErrorKind = "timeout"
	KindAborted        ErrorKind = "aborted"
	// KindDenied is a call the policy did not let run: a rule, a hook or
	// a person's answer denied it.
	KindDenied ErrorKind = "denied"
	// KindDeferred is the kind of a deferred record (StatusDeferred): the
	// call did not run, and waits for an answer.
	KindDeferred ErrorKind = "deferred"
	// KindBudget, on an eval's verdict, says the run's budget was spent
	// before the case could finish.
	KindBudget ErrorKind = "budget"
)

// ErrorInfo is the `error` field of a record.
type ErrorInfo struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

// Truncation is present on a record whose content was cut to --max-output:
// how large the whole output was and where it was saved.
type Truncation struct {
	Bytes   int64  `json:"bytes"`
	SavedTo string `json:"saved_to"`
}

// Record is one Message: one JSON object on one line. The fields up to
// DurationMS (with ArgsHash) are in every record; the rest appear only
// where they apply (session transcripts, truncated output) and are omitted
// otherwise.
type Record struct {
	ID        string          `json:"id"`
	SessionID string          `json:"session_id"`
	ParentID  string          `json:"parent_id,omitempty"`
	Role      Role            `json:"role"`
	Type      Type            `json:"type"`
	Status    Status          `json:"status"`
	Name      string          `json:"name,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Error     *ErrorInfo      `json:"error,omitempty"`
	// ArgsHash, on the tool_result records of `kesoku run`, is a hash of
	// the request's arguments (16 hex digits), by which --resume knows the
	// request again when ids are given by position and the file changed.
	ArgsHash string `json:"args_hash,omitempty"`
	// Position, on the tool_result records of `kesoku run` (and of batch
	// collect), is the request's 1-based place in the whole run: records
	// of the shards of a run, or of a run and its resumption, go back in
	// request order by it, whatever the request ids are.
	Position   int64     `json:"position,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	DurationMS *int64    `json:"duration_ms,omitempty"`
	// DecidedBy, on a tool_result, says what decided whether the call ran
	// when something did (a rule, a hook, a person's answer): the
	// decisions a run's policy made are on record.
	DecidedBy string `json:"decided_by,omitempty"`
	// HookFeedback, on a tool_result of a call that ran, is what the
	// hooks that ran after it said of its result, for the model to read
	// with it (as Claude Code's PostToolUse hooks speak to Claude): the
	// standard error of a hook that exited 2, a reason given with
	// decision: block, an additionalContext.
	HookFeedback string `json:"hook_feedback,omitempty"`
	// Approval, on a deferred record, is a person's answer given since
	// (kesoku approve): "approved" or "refused". A resumed run runs an
	// approved call once, and records a refused one as denied.
	Approval string `json:"approval,omitempty"`

	// CallID is the provider's own id for a tool call (Claude's tool_use id,
	// Gemini's function call id, or one kesoku generated where Gemini gave
	// none), kept on tool_call and tool_result records of a session.
	CallID string `json:"call_id,omitempty"`
	// Model names the model that produced an assistant record.
	Model string `json:"model,omitempty"`
	// ProviderData holds what a provider needs echoed verbatim on the next
	// turn (Gemini's thoughtSignature, say), so that a resumed session sends
	// exactly what the model produced.
	ProviderData json.RawMessage `json:"provider_data,omitempty"`
	// Truncated is set when Content was cut to the output limit.
	Truncated *Truncation `json:"truncated,omitempty"`
	// ModelCallID is the id the model gave a tool call when kesoku had to
	// replace it (CallID) because it was a duplicate or broke the
	// provider's pattern: the mapping, kept so that the transcript says
	// what the model sent.
	ModelCallID string `json:"model_call_id,omitempty"`
	// Cut, on an assistant record, names why the model's turn was cut
	// short ("max_tokens", "SAFETY", "refusal", "no_stop_reason"…): its
	// text is partial, and its tool calls were not run.
	Cut string `json:"cut,omitempty"`
	// Usage, on an assistant record (and the record of kesoku analyze),
	// is what the model request that made it cost. A model turn of several
	// records carries its usage on the first and zero on the others, so
	// that the sum over a transcript is what the session cost.
	Usage *Usage `json:"usage,omitempty"`
	// Repeat, on a verdict, is which run of its case it judges (1-based,
	// for kesoku eval --repeat).
	Repeat int `json:"repeat,omitempty"`
	// CostUSD, on a verdict, is what the case's model requests cost in US
	// dollars, where the model has a price.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// TraceID and SpanID, on the records of a traced run (OpenTelemetry,
	// turned on by the OTEL_* variables), are the ids of the trace and of
	// the span the record was made under (a tool call's execute_tool, a
	// model request's chat), in lowercase hex.
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
}

// Usage is what model requests cost, in tokens, as the provider reported
// them. InputTokens counts every token sent, those read from or written
// to the provider's prompt cache included (OpenAI and Gemini count them
// so; Claude's own input_tokens leaves them out, and kesoku adds them
// back), so that input tokens mean the same for every provider.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CacheReadTokens are the input tokens read from the prompt cache
	// (cheaper), where the provider reports them.
	CacheReadTokens int64 `json:"cache_read_tokens,omitempty"`
	// CacheWriteTokens are the input tokens written to the prompt cache
	// (dearer, once), where the provider reports them.
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// Store keeps records: where a run or a session puts them, and where a
// tool may add its own (ToolContext.Store). kesoku's records files are one
// implementation; a database can be another.
type Store interface {
	// Append stores records in the order given. It must be safe for
	// concurrent use.
	Append(ctx context.Context, recs ...*Record) error
}
