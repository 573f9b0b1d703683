package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kesoku/kesoku/internal/workspace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// Call is what a record says of the request it answers.
type Call struct {
	// ID is the request's id, the record's parent_id.
	ID   string
	Name string
	// SessionID, when set, is the record's session_id (a request file's
	// own); otherwise the Packer's.
	SessionID string
	// CallID is a provider's own id of the call, the record's call_id.
	CallID string
}

// Packer builds tool_result records, the one builder of them: of what
// calls came back with (step 5 of the ToolRunner), of calls refused before
// they ran, and of a session's calls cut short or left unanswered — for
// the calls a command makes itself too (kesoku analyze, batch collect), so
// that their records are those kesoku run would have written. Their error
// kinds are chosen beside it (KindOf). The zero Packer packs without
// limits.
type Packer struct {
	// SessionID is the session_id of records whose Call has none.
	SessionID string
	// MaxOutput is the largest content a record holds; larger output is
	// cut to its head and tail and saved whole under OutputDir. It bounds
	// an error's message too. 0 means no limit.
	MaxOutput int64
	// OutputDir is where whole outputs are saved (default .kesoku/outputs
	// under AWD).
	OutputDir string
	// AWD is the agent working directory: a saved output's path is given
	// relative to it.
	AWD string
	// Timeout is the run's bound on each call (--timeout): a call that
	// timed out under another bound (its tool's own) says so.
	Timeout time.Duration
	// Redact hides the secrets the run holds in an output too large for
	// its record, before it is saved and cut (a secret cut in two would
	// escape the record's redaction); nil hides nothing.
	Redact func([]byte) []byte
}

// Outcome is what a call came back with, and what the run knew of it when
// it did.
type Outcome struct {
	Value any
	Err   error
	// Panicked holds the message of a recovered panic, with a short stack.
	Panicked string
	// Cut says the call was interrupted (or cut by --fail-fast, when
	// ByFailFast); TimedOut that its bound, Timeout, passed.
	Cut, ByFailFast, TimedOut bool
	Timeout                   time.Duration
}

// Pack is the record of a call that came back with o after d. Its ID is
// left for the caller to give as it hands the record out: a run gives ids
// in request order.
func (p *Packer) Pack(c Call, o Outcome, d time.Duration) *message.Record {
	if o.Panicked != "" {
		return p.failed(c, message.KindPanic, o.Panicked, d)
	}
	if o.Err != nil {
		kind := KindOf(o.Err)
		switch {
		case o.TimedOut && !o.Cut:
			why := "the timeout for each call"
			if o.Timeout != p.Timeout {
				why = "the tool's own timeout"
			}
			// Only the bound and which it was: what the tool said as its
			// context ended ("context deadline exceeded", or whatever it
			// managed before the deadline won the race) tells the user
			// nothing more.
			return p.failed(c, message.KindTimeout, fmt.Sprintf("timed out after %v (%s)", o.Timeout, why), d)
		case kind == message.KindInvalidArgs:
			// The arguments' fault, though the run was cut meanwhile.
		case o.ByFailFast:
			return p.Aborted(c, "cancelled: an earlier call failed, and the run stops at the first failure: "+o.Err.Error(), d)
		case o.Cut:
			return p.Aborted(c, "interrupted while running: "+o.Err.Error(), d)
		}
		return p.failed(c, kind, o.Err.Error(), d)
	}
	rec, err := p.success(c, o.Value, d)
	if err != nil {
		return p.failed(c, message.KindToolError, err.Error(), d)
	}
	return rec
}

// ErrInvalidRequest is what a request that cannot run as written is: not
// a request, an id given twice, changed since the run it resumes, a call
// of a model's turn that was cut short. Its record is an invalid_request
// error.
var ErrInvalidRequest = errors.New("invalid request")

// ErrInvalidArgs is what arguments that could not be read at all are (no
// JSON object): their record is an invalid_args error, as the registry's
// argument errors' are.
var ErrInvalidArgs = errors.New("invalid arguments")

// ErrUnknownTool is what a call of a tool that is not there is, besides
// the registry's own error for it: its record is an unknown_tool error.
var ErrUnknownTool = errors.New("unknown tool")

// InvalidRequest is err, said as it is, marked as a request's own fault
// (ErrInvalidRequest) unless it says more: arguments, an unknown tool.
func InvalidRequest(err error) error { return &marked{err, ErrInvalidRequest} }

// InvalidArgs is err, said as it is, marked as the arguments' fault
// (ErrInvalidArgs): a tool's check of them refused them.
func InvalidArgs(err error) error { return &marked{err, ErrInvalidArgs} }

// marked is err, said as it is, that is also as.
type marked struct{ err, as error }

func (e *marked) Error() string        { return e.err.Error() }
func (e *marked) Unwrap() error        { return e.err }
func (e *marked) Is(target error) bool { return target == e.as }

// KindOf is the error kind of the record of a call that failed, or never
// ran, because of err: the one mapping from errors to error kinds, most
// telling first. (Panics, timeouts and interrupts are not errors of the
// call: Pack gives them theirs.) A new kind is one case here.
func KindOf(err error) message.ErrorKind {
	switch {
	case toolspec.IsInvalidArgs(err), errors.Is(err, ErrInvalidArgs):
		return message.KindInvalidArgs
	case errors.As(err, new(*toolset.UnknownToolError)), errors.Is(err, ErrUnknownTool):
		return message.KindUnknownTool
	case errors.Is(err, ErrInvalidRequest):
		return message.KindInvalidRequest
	}
	return message.KindToolError
}

// record is the part every record of a call shares: a field every
// tool_result has is set here.
func (p *Packer) record(c Call, d time.Duration) *message.Record {
	ms := d.Milliseconds()
	session := c.SessionID
	if session == "" {
		session = p.SessionID
	}
	return &message.Record{
		SessionID:  session,
		ParentID:   c.ID,
		Role:       message.RoleTool,
		Type:       message.TypeToolResult,
		Status:     message.StatusResponded,
		Name:       c.Name,
		CallID:     c.CallID,
		CreatedAt:  time.Now().UTC(),
		DurationMS: &ms,
	}
}

// Refused is the record of a call that never ran, because of why; msg is
// what it says, "" for why's own text.
func (p *Packer) Refused(c Call, why error, msg string) *message.Record {
	if msg == "" {
		msg = why.Error()
	}
	return p.failed(c, KindOf(why), msg, 0)
}

// failed is the record of a call that failed after d, or (d 0) of a
// request refused before it ran.
func (p *Packer) failed(c Call, kind message.ErrorKind, msg string, d time.Duration) *message.Record {
	rec := p.record(c, d)
	rec.IsError = true
	rec.Error = &message.ErrorInfo{Kind: kind, Message: p.clip(msg)}
	return rec
}

// Aborted is the record of a request cut short by an interrupt (or
// --fail-fast) after d.
func (p *Packer) Aborted(c Call, msg string, d time.Duration) *message.Record {
	rec := p.failed(c, message.KindAborted, msg, d)
	rec.Status = message.StatusAborted
	return rec
}

// Denied is the record of a call the policy did not let run: by says
// what decided (a rule, a hook, a person's answer), msg why.
func (p *Packer) Denied(c Call, by, msg string) *message.Record {
	rec := p.failed(c, message.KindDenied, msg, 0)
	rec.DecidedBy = by
	return rec
}

// Deferred is the record of a call that waits for a person's answer: it
// did not run, and a resumed run runs it once it is approved.
func (p *Packer) Deferred(c Call, by, msg string) *message.Record {
	rec := p.failed(c, message.KindDeferred, msg, 0)
	rec.Status = message.StatusDeferred
	rec.DecidedBy = by
	return rec
}

// UnansweredMessage is what the model reads for a call of a session whose
// result never made it to the transcript.
const UnansweredMessage = "no result was recorded: the session ended (interrupted, killed or crashed) before the call returned; it may or may not have taken effect"

// Unanswered is the record of a session's call that has no result in its
// transcript: the session ended while it ran. It is aborted.
func (p *Packer) Unanswered(c Call) *message.Record {
	return p.Aborted(c, UnansweredMessage, 0)
}

// clip keeps an error message within MaxOutput, head and tail: a tool may
// put anything in an error.
func (p *Packer) clip(msg string) string {
	limit := p.MaxOutput
	if limit <= 0 || int64(len(msg)) <= limit {
		return msg
	}
	head, tail := cut(msg, limit)
	return head + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(msg)-len(head)-len(tail)) + tail
}

// success is the record of a call that returned v after d.
func (p *Packer) success(c Call, v any, d time.Duration) (*message.Record, error) {
	if cut, ok := v.(*registry.CutOutput); ok {
		rec := p.record(c, d)
		rec.Content, rec.Truncated = p.cutByTool(cut)
		return rec, nil
	}
	content, err := encodeContent(v)
	if err != nil {
		return nil, fmt.Errorf("tool %q returned a value that is not JSON: %w", c.Name, err)
	}
	rec := p.record(c, d)
	if p.MaxOutput > 0 && int64(len(content)) > p.MaxOutput {
		content, rec.Truncated = p.truncate(content)
	} else if tooDeep(content, MaxContentDepth) {
		// Written, the record could not be read back: by --resume,
		// merge or diff. (Cut, it is a string.)
		return nil, fmt.Errorf("tool %q returned a value %w", c.Name, &DepthError{Limit: MaxContentDepth})
	}
	rec.Content = content
	return rec, nil
}

// encodeContent is json.Marshal with the common results (numbers,
// strings, booleans) written directly: they are most calls of a batch.
func encodeContent(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case string:
		return AppendString(nil, x), nil
	case int:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(nil, x, 10), nil
	case bool:
		return strconv.AppendBool(nil, x), nil
	case json.RawMessage:
		if json.Valid(x) {
			return x, nil
		}
	}
	return marshal(v)
}

// marshal is json.Marshal without HTML escaping, as records are written:
// a tool's "<html>" stays "<html>".
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// truncate cuts content to its head and tail within MaxOutput, as a JSON
// string saying what was cut and where the whole of it was saved, so that
// a model can read the rest with read_file.
func (p *Packer) truncate(content json.RawMessage) (json.RawMessage, *message.Truncation) {
	whole, ext := []byte(content), ".json"
	var s string
	if len(content) > 0 && content[0] == '"' && json.Unmarshal(content, &s) == nil {
		// A string is cut as text, not as its JSON quoting.
		whole, ext = []byte(s), ".txt"
	}
	if p.Redact != nil {
		whole = p.Redact(whole)
	}
	t := &message.Truncation{Bytes: int64(len(whole))}
	saved := "it could not be saved"
	if path, err := p.saveOutput(message.NewID()+ext, whole); err != nil {
		saved += ": " + err.Error()
	} else {
		t.SavedTo = path
		saved = "the whole output is in " + path
	}
	head, tail := cut(string(whole), p.MaxOutput)
	return cutContent(head, tail, int64(len(whole)), saved), t
}

// cutByTool is the content of an output the tool cut itself, as it came,
// in the words of truncate.
func (p *Packer) cutByTool(c *registry.CutOutput) (json.RawMessage, *message.Truncation) {
	t := &message.Truncation{Bytes: c.Bytes}
	saved := "it could not be saved"
	if c.SaveErr != nil {
		saved += ": " + c.SaveErr.Error()
	}
	if c.SavedTo != "" {
		t.SavedTo = p.inAWD(c.SavedTo)
		saved = "the whole output is in " + t.SavedTo
	}
	head, tail := c.Head, c.Tail
	if limit := p.MaxOutput; limit > 0 {
		head, _ = cut(head, limit)
		_, tail = cut(tail, limit)
	}
	return cutContent(head, tail, c.Bytes, saved), t
}

// cutContent is a record's content for an output of whole bytes cut to
// head and tail, saying so where it was cut.
func cutContent(head, tail string, whole int64, saved string) json.RawMessage {
	marker := fmt.Sprintf("\n[... kesoku cut %d of %d bytes here; %s ...]\n", whole-int64(len(head))-int64(len(tail)), whole, saved)
	content, _ := marshal(head + marker + tail)
	return content
}

// cut returns the head and tail of s that together fit in limit bytes, on
// UTF-8 boundaries: half each.
func cut(s string, limit int64) (head, tail string) {
	n := int(limit / 2)
	h := n
	for h > 0 && h < len(s) && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - n
	for t < len(s) && t > 0 && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h], s[t:]
}

// saveOutput writes a whole output under OutputDir and returns its path,
// relative to the AWD when it lies inside it (so that the file tools can
// read it).
func (p *Packer) saveOutput(name string, data []byte) (string, error) {
	dir := p.OutputDir
	if dir == "" {
		dir = workspace.LayoutOf(p.AWD).Outputs()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save output: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("save output: %w", err)
	}
	return p.inAWD(path), nil
}

// inAWD is path relative to the AWD when it lies inside it (so that the
// file tools can read it), else as it is.
func (p *Packer) inAWD(path string) string {
	if p.AWD != "" {
		if rel, err := filepath.Rel(p.AWD, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}
