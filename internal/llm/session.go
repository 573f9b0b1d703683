package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/prices"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// DefaultMaxTurns is how many model turns one prompt may take when
// SessionOptions.MaxTurns is 0.
const DefaultMaxTurns = 20

// ErrInterrupted says a turn was interrupted: its context was cancelled
// while the model was thinking or tools were running. Everything up to
// that point is in the transcript, which stays valid to resume.
var ErrInterrupted = errors.New("interrupted")

// MaxTurnsError says the model still asked for tools after the last turn
// allowed. The calls of that turn ran and their results are recorded.
type MaxTurnsError struct {
	Turns int
}

func (e *MaxTurnsError) Error() string {
	turns := "turns"
	if e.Turns == 1 {
		turns = "turn"
	}
	return fmt.Sprintf("the model did not answer within %d %s (the turns a prompt may take); it still asked for tools", e.Turns, turns)
}

// SessionOptions configure a Session.
type SessionOptions struct {
	// Provider is the model.
	Provider Provider
	// Runner runs the model's tool calls, one turn's calls at once up to
	// its Jobs.
	Runner *runner.ToolRunner
	// Store receives the transcript, record by record as the session goes.
	Store message.Store
	// SessionID goes on every record; a new one when empty.
	SessionID string
	// System is the system instruction.
	System string
	// Tools are the tools the model is offered.
	Tools []*toolset.Tool
	// MaxTurns bounds the model turns of one prompt; 0 means
	// DefaultMaxTurns.
	MaxTurns int
	// OnText, when set, receives the model's text as it arrives, to show
	// it; requests are streamed either way.
	OnText func(string)
	// OnCalls, when set, is told of a turn's tool calls before they run
	// (to show progress).
	OnCalls func([]*ToolCall)
	// OnNotice, when set, is told in one line of what the session did on
	// its own: a turn cut short whose calls were not run, say.
	OnNotice func(string)
	// Redactor hides the API key in everything the session hands on: the
	// records it stores, the text it streams, the answer and its errors.
	Redactor *Redactor
	// Tally, when set, adds up what each of the session's model requests
	// cost (the tools' own requests can add to it too).
	Tally *Tally
}

// Tally adds up what model requests cost, and holds them to a budget.
// It is safe for concurrent use: the tool calls of a turn that ask the
// model (analyze_media) add to it at once, and so do the sessions of an
// eval.
type Tally struct {
	// Price, when set, is the model's: the tally then adds up dollars too.
	// Budget, when not zero, is what the requests may spend: once it is
	// spent, Allow refuses the next request. Both are set before the
	// tally is used.
	Price  *prices.Price
	Budget Budget
	// Parent, when set, counts every request too, and its budget holds
	// this tally's requests: an eval's run over its cases' tallies.
	Parent *Tally

	mu       sync.Mutex
	usage    message.Usage
	usd      float64
	requests int
	// unreported counts the requests whose cost the provider did not say
	// (a server that speaks OpenAI's API without its usage).
	unreported int
}

// Budget bounds what a run's model requests may spend; a zero field is
// no bound.
type Budget struct {
	USD    float64
	Tokens int64
}

// BudgetError says a budget was spent, or can no longer be kept: no new
// model request starts.
type BudgetError struct {
	// Budget is the bound, USD and Tokens what was spent when it was
	// reached.
	Budget Budget
	USD    float64
	Tokens int64
	// Unreported, when not zero, is how many requests reported no usage
	// (a server that speaks OpenAI's API without it): what they spent is
	// unknown, and so is whether the budget is.
	Unreported int
}

func (e *BudgetError) Error() string {
	if e.Unreported > 0 {
		budget := english.Count(int(e.Budget.Tokens), "token", "tokens")
		if e.Budget.USD > 0 {
			budget = Dollars(e.Budget.USD)
		}
		return fmt.Sprintf("the budget of %s cannot be kept: %s reported no usage, so what was spent is unknown",
			budget, english.Count(e.Unreported, "model request", "model requests"))
	}
	if e.Budget.USD > 0 && e.USD >= e.Budget.USD {
		return fmt.Sprintf("the budget of %s is spent (%s so far)", Dollars(e.Budget.USD), Dollars(e.USD))
	}
	return fmt.Sprintf("the budget of %s is spent (%s so far)",
		english.Count(int(e.Budget.Tokens), "token", "tokens"), english.Count(int(e.Tokens), "token", "tokens"))
}

// Dollars says an amount in US dollars to a tenth of a cent, or to two
// significant digits when it is less than that.
func Dollars(usd float64) string {
	if usd > 0 && usd < 0.001 {
		// Two significant digits: at four places $0.00011 spent of a
		// $0.0001 budget read as "$0.0001 of $0.0001", and $0.00001 as
		// nothing at all.
		places := min(2-int(math.Floor(math.Log10(usd))), 12)
		return fmt.Sprintf("$%.*f", places-1, usd)
	}
	return fmt.Sprintf("$%.3f", usd)
}

// Add counts one request, and what it cost when the provider said (u not
// nil).
func (t *Tally) Add(u *message.Usage) {
	if t.Parent != nil {
		t.Parent.Add(u)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	if u == nil {
		t.unreported++
		return
	}
	t.usage.Add(*u)
	if t.Price != nil {
		t.usd += t.Price.Cost(*u)
	}
}

// Allow says whether a new model request may start: a *BudgetError once
// the budget is spent. Requests already started finish, and are counted,
// whatever they cost. A nil tally allows everything.
func (t *Tally) Allow() error {
	if t == nil {
		return nil
	}
	if err := t.Parent.Allow(); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tokens := t.usage.InputTokens + t.usage.OutputTokens
	b := t.Budget
	if (b.USD > 0 && t.usd >= b.USD) || (b.Tokens > 0 && tokens >= b.Tokens) {
		return &BudgetError{Budget: b, USD: t.usd, Tokens: tokens}
	}
	if (b.USD > 0 || b.Tokens > 0) && t.unreported > 0 {
		// A bound on what cannot be counted holds only by stopping.
		return &BudgetError{Budget: b, USD: t.usd, Tokens: tokens, Unreported: t.unreported}
	}
	return nil
}

// Cost is what the requests counted cost in US dollars, and whether it is
// known: the model has a price and every request reported its usage.
func (t *Tally) Cost() (float64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usd, t.Price != nil && t.unreported == 0
}

// Unreported is how many of the requests counted had no usage reported:
// their cost is unknown, not zero.
func (t *Tally) Unreported() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unreported
}

// Total is what the requests counted cost, and how many there were.
func (t *Tally) Total() (message.Usage, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usage, t.requests
}

// Session is the agent loop: a conversation with a model whose tool calls
// the ToolRunner runs, recorded as Message records. A Session serves one
// turn at a time.
type Session struct {
	opts    SessionOptions
	history []Message
	// last is the id of the last record: the parent of the next.
	last string
	// ids hands out the ids of the session's tool calls.
	ids callIDs
	// held is the last turn of a resumed transcript whose calls the
	// session stopped at, deferred: they run (once answered) before
	// anything is sent.
	held *heldTurn
}

// NewSession starts an empty session.
func NewSession(opts SessionOptions) *Session {
	if opts.SessionID == "" {
		opts.SessionID = newID()
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = DefaultMaxTurns
	}
	opts.Store = opts.Redactor.Store(opts.Store)
	return &Session{opts: opts}
}

// SetRunner replaces the ToolRunner for the turns to come: a runner's
// end-of-grace channel serves one interrupt.
func (s *Session) SetRunner(r *runner.ToolRunner) { s.opts.Runner = r }

// ID is the session's id.
func (s *Session) ID() string { return s.opts.SessionID }

// History returns the conversation so far, as it is sent to the model.
func (s *Session) History() []Message { return s.history }

// Send is one turn of the user: it records prompt, then asks the model and
// runs its tool calls, turn after turn, until the model answers with text,
// and returns that answer. An empty prompt continues the conversation as
// it stands (after a resume), which must then end with a user message.
//
// Cancelling ctx interrupts: a model request in flight is cancelled, tool
// calls not yet started are aborted and those running get the runner's
// grace; every call still gets its record, and Send returns
// ErrInterrupted.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	answer, err := s.send(ctx, prompt)
	return s.opts.Redactor.String(answer), s.opts.Redactor.Error(err)
}

func (s *Session) send(ctx context.Context, prompt string) (string, error) {
	if s.held != nil {
		if err := s.runHeld(ctx); err != nil {
			return "", err
		}
	}
	if prompt = strings.TrimSpace(prompt); prompt != "" {
		content, _ := json.Marshal(prompt)
		rec := s.newRecord(message.RoleUser, message.TypeText)
		rec.Content = content
		if err := s.append(ctx, rec); err != nil {
			return "", err
		}
		s.history = append(s.history, Message{Role: message.RoleUser, Parts: []Part{{Text: prompt}}})
	} else if n := len(s.history); n == 0 || s.history[n-1].Role != message.RoleUser {
		return "", errors.New("nothing to send: no prompt, and the conversation does not end with the user")
	}
	model := s.opts.Provider.ModelName()
	// paused is the text of turns the provider paused: the answer begins
	// with it.
	paused := ""
	for turn := 1; ; turn++ {
		if ctx.Err() != nil {
			return "", ErrInterrupted
		}
		if err := s.opts.Tally.Allow(); err != nil {
			return "", err
		}
		onText, flush := s.opts.Redactor.Stream(s.opts.OnText)
		// The request's span holds the model's turn and its records; the
		// calls it asks for run beside it, under the session's.
		chatCtx, span := tracing.From(ctx).Chat(ctx, s.opts.Provider.Name(), model)
		if span != nil {
			span.Content(tracing.KeyInstructions, s.opts.System, s.opts.Redactor)
			span.ContentJSON(tracing.KeyInput, traceMessages(s.history), s.opts.Redactor)
		}
		resp, err := s.opts.Provider.Generate(chatCtx, &Request{
			System: s.opts.System, Messages: s.history, Tools: s.opts.Tools, Cacheable: true,
		}, onText)
		flush()
		if err != nil {
			span.Error(err)
			span.End()
			if ctx.Err() != nil {
				return "", ErrInterrupted
			}
			return "", fmt.Errorf("%s: %w", model, err)
		}
		if s.opts.Tally != nil {
			s.opts.Tally.Add(resp.Usage)
		}
		if span != nil {
			span.Answered(resp.Usage, cmp.Or(resp.Cut, resp.StopReason))
			span.ContentJSON(tracing.KeyOutput, traceMessages([]Message{resp.Message}), s.opts.Redactor)
		}
		calls, err := s.recordTurn(chatCtx, resp)
		span.End()
		if err != nil {
			return "", err
		}
		answer := paused + AnswerText(resp.Message)
		paused = ""
		switch {
		case resp.Cut != "" && len(calls) > 0:
			// Half a write_file must not be written: the calls are
			// answered with an error, and the model tries again.
			s.notice(fmt.Sprintf("%s: the turn was cut short: %s; its %s not run, and the model was told to try again",
				model, DescribeCut(resp.Cut), english.Count(len(calls), "tool call was", "tool calls were")))
			if err := s.refuseCalls(ctx, calls, resp.Cut); err != nil {
				return "", err
			}
		case resp.Cut != "":
			return answer, fmt.Errorf("%s: %w", model, &CutError{Reason: resp.Cut, Answer: answer})
		case len(calls) > 0:
			if err := s.runCalls(ctx, calls); err != nil {
				return "", err
			}
		case resp.Paused:
			// The provider paused a long turn; sent again, it goes on.
			paused = answer
		case strings.TrimSpace(answer) == "":
			return "", fmt.Errorf("%s: the model gave no answer (stop reason %q)", model, resp.StopReason)
		default:
			return answer, nil
		}
		if ctx.Err() != nil {
			return "", ErrInterrupted
		}
		if turn >= s.opts.MaxTurns {
			return "", &MaxTurnsError{Turns: s.opts.MaxTurns}
		}
	}
}

// notice tells the user something the session did on its own.
func (s *Session) notice(msg string) {
	if s.opts.OnNotice != nil {
		s.opts.OnNotice(s.opts.Redactor.String(msg))
	}
}

// call is a tool call of the model with the id of its record.
type call struct {
	rec  *message.Record
	call *ToolCall
}

// recordTurn records the model's turn, part by part, adds it to the
// history and returns its tool calls. Text answers what came before it;
// the calls of one turn are siblings that answer the text before them.
// What goes into the history is what a strict provider accepts:
// whitespace-only text is left out, and every call has an id that is
// unique in the session and in every provider's pattern (the model's
// own, when it is).
func (s *Session) recordTurn(ctx context.Context, resp *Response) ([]call, error) {
	var parts []Part
	var recs []*message.Record
	var calls []call
	parent := s.last
	model := s.opts.Provider.ModelName()
	for _, p := range resp.Message.Parts {
		var rec *message.Record
		switch {
		case p.ToolCall != nil:
			rec = s.newRecord(message.RoleAssistant, message.TypeToolCall)
			tc := *p.ToolCall
			tc.ID = s.ids.assign(p.ToolCall.ID)
			if tc.ID != p.ToolCall.ID {
				rec.ModelCallID = p.ToolCall.ID
			}
			rec.Name = tc.Name
			rec.CallID = tc.ID
			rec.Content = objectOrEmpty(tc.Args)
			if tc.BadArgs == "" && !bytes.Equal(rec.Content, bytes.TrimSpace(tc.Args)) && len(bytes.TrimSpace(tc.Args)) > 0 && string(bytes.TrimSpace(tc.Args)) != "null" {
				tc.BadArgs = string(tc.Args)
			}
			if tc.BadArgs != "" {
				// The transcript keeps what the model sent, as a string: the
				// arguments of a tool_call are otherwise an object.
				rec.Content, _ = json.Marshal(tc.BadArgs)
			}
			// What goes back to the provider is an object, as it requires.
			tc.Args = objectOrEmpty(tc.Args)
			p.ToolCall = &tc
			calls = append(calls, call{rec: rec, call: &tc})
		case p.Blob != nil || p.ToolResult != nil:
			// Blobs from a model are not kept.
			continue
		default:
			if !p.Thought {
				p.Text = visibleText(p.Text)
			}
			if p.Text == "" && len(p.ProviderData) == 0 {
				// Whitespace, or nothing: Claude refuses such a block.
				continue
			}
			rec = s.newRecord(message.RoleAssistant, message.TypeText)
			if p.Text != "" {
				rec.Content, _ = json.Marshal(p.Text)
			}
		}
		rec.ParentID = parent
		rec.Model = model
		rec.ProviderData = p.ProviderData
		rec.Cut = resp.Cut
		if p.ToolCall == nil {
			parent = rec.ID
		}
		recs = append(recs, rec)
		parts = append(parts, p)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	if resp.Usage != nil {
		// The turn's cost goes on its first record, and zero on the
		// others: summed over the transcript, each request counts once.
		u := *resp.Usage
		recs[0].Usage = &u
		for _, rec := range recs[1:] {
			rec.Usage = &message.Usage{}
		}
	}
	if err := s.append(ctx, recs...); err != nil {
		return nil, err
	}
	s.history = append(s.history, Message{Role: message.RoleAssistant, Parts: parts})
	return calls, nil
}

// cutMessage is what the model reads for a call of a turn that was cut.
func cutMessage(reason string) string {
	return fmt.Sprintf("not run: your turn was cut short (%s), so this call may be incomplete; send it again, whole (split a large write into smaller ones)", reason)
}

// refuseCalls answers the calls of a cut turn, none of which ran, with an
// error that says why.
func (s *Session) refuseCalls(ctx context.Context, calls []call, reason string) error {
	recs := make([]*message.Record, len(calls))
	for i, c := range calls {
		recs[i] = s.refusal(c, records.ErrInvalidRequest, cutMessage(reason))
	}
	if err := s.append(ctx, recs...); err != nil {
		return err
	}
	s.addResults(recs)
	return nil
}

// runCalls runs one turn's calls through the ToolRunner, records their
// results and adds them to the history, in the order of the calls.
//
// Each result is recorded as soon as its call returns, not when the whole
// turn is done: a session killed meanwhile keeps the result of a
// write_file that did finish, so that a resumed model is not told it "may
// or may not have taken effect". The calls start in their order, up to
// the runner's Jobs at once. A call whose arguments are no JSON object
// does not run: its result says what was wrong with them.
func (s *Session) runCalls(ctx context.Context, calls []call) error {
	recs, err := s.execCalls(ctx, calls)
	if recs != nil {
		s.addResults(recs)
	}
	return err
}

// DeferredError says the session stopped at tool calls that wait for a
// person's answer: the rules asked about them, no one could be asked, and
// --on-ask defer stopped the session there. The transcript holds them as
// deferred records; once they are answered (kesoku approve), a resumed
// session runs them and goes on.
type DeferredError struct {
	// IDs are the deferred calls' ids: their tool_call records' ids.
	IDs []string
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("stopped at %s waiting for a person's answer (deferred)",
		english.Count(len(e.IDs), "tool call", "tool calls"))
}

// deferStopMessage is what a call of a turn says that did not start
// because a call before it was deferred; a resumed session runs it.
const deferStopMessage = "not started: an earlier call of this turn waits for a person's answer (deferred)"

// execCalls runs calls and records their results, returning them in the
// order of the calls. A deferred call stops the turn: the calls after it
// that had not started are recorded as aborted, nothing is returned, and
// the error is a *DeferredError.
func (s *Session) execCalls(ctx context.Context, calls []call) ([]*message.Record, error) {
	if s.opts.OnCalls != nil {
		tcs := make([]*ToolCall, len(calls))
		for i, c := range calls {
			tc := *c.call
			tc.Name = s.opts.Redactor.String(tc.Name)
			tc.Args = json.RawMessage(s.opts.Redactor.String(string(tc.Args)))
			if tc.BadArgs != "" {
				tc.Args = json.RawMessage(s.opts.Redactor.String(tc.BadArgs))
			}
			tcs[i] = &tc
		}
		s.opts.OnCalls(tcs)
	}
	recs := make([]*message.Record, len(calls))
	var mu sync.Mutex
	var storeErr error
	keep := func(i int, rec *message.Record) {
		// What goes to the model is what the transcript holds: no secret.
		rec = s.opts.Redactor.Record(rec)
		mu.Lock()
		defer mu.Unlock()
		recs[i] = rec
		if storeErr == nil {
			// An interrupt does not stop it: what happened must be recorded.
			if err := s.opts.Store.Append(context.WithoutCancel(ctx), rec); err != nil {
				storeErr = fmt.Errorf("write transcript: %w", err)
			}
		}
	}
	slots := make(chan struct{}, s.opts.Runner.Jobs())
	var wg sync.WaitGroup
	var stopped atomic.Bool // a call was deferred
	for i, c := range calls {
		req := &request.Request{ID: c.rec.ID, Name: c.call.Name, CallID: c.call.ID, SessionID: s.opts.SessionID}
		// Arguments that were no JSON object are refused by the runner, as
		// it refuses them in a replay of the transcript.
		if c.call.BadArgs != "" {
			req.Err = &request.ArgsError{Raw: c.call.BadArgs}
		} else if args, err := DecodeArgs(c.call.Args); err != nil {
			req.Err = &request.ArgsError{Raw: string(c.call.Args)}
		} else {
			req.Args = args
		}
		// Calls start in their order: a free slot, or the interrupt (then
		// the runner records the call as aborted at once).
		held := false
		select {
		case slots <- struct{}{}:
			held = true
		case <-ctx.Done():
		}
		if stopped.Load() {
			// Calls start in order: one after a deferred call waits with
			// it.
			rec := s.packer().Aborted(records.Call{ID: c.rec.ID, Name: c.call.Name, CallID: c.call.ID}, deferStopMessage, 0)
			rec.ID = newID()
			keep(i, rec)
			if held {
				<-slots
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if held {
				defer func() { <-slots }()
			}
			one, err := s.opts.Runner.RunAll(ctx, []*request.Request{req})
			switch {
			case err != nil:
				mu.Lock()
				if storeErr == nil {
					storeErr = fmt.Errorf("run tool calls: %w", err)
				}
				mu.Unlock()
			case len(one) != 1:
				mu.Lock()
				if storeErr == nil {
					storeErr = fmt.Errorf("run tool calls: %d records for one call", len(one))
				}
				mu.Unlock()
			default:
				if one[0].Status == message.StatusDeferred {
					stopped.Store(true)
				}
				keep(i, one[0])
			}
		}()
	}
	wg.Wait()
	if storeErr != nil {
		return nil, storeErr
	}
	var deferred []string
	for _, rec := range recs {
		if rec.Status == message.StatusDeferred {
			deferred = append(deferred, rec.ParentID)
		}
	}
	if len(deferred) > 0 {
		// Nothing goes to the model: the turn waits for the answers.
		return nil, &DeferredError{IDs: deferred}
	}
	return recs, nil
}

// heldTurn is the last turn of a resumed transcript, which stopped at
// deferred calls: its calls, and the results they have (nil for those
// still to run).
type heldTurn struct {
	calls   []call
	results []*message.Record
}

// runHeld runs the calls of the held turn that wait — an approved call
// runs, a refused one is recorded as denied, one not answered is decided
// again — and adds the turn's results to the history.
func (s *Session) runHeld(ctx context.Context) error {
	h := s.held
	var todo []call
	var at []int
	for i, r := range h.results {
		if r == nil {
			todo, at = append(todo, h.calls[i]), append(at, i)
		}
	}
	recs, err := s.execCalls(ctx, todo)
	if err != nil {
		return err
	}
	s.held = nil
	for j, i := range at {
		h.results[i] = recs[j]
	}
	s.addResults(h.results)
	return nil
}

// refusal is the result of a call that did not run, because of why,
// said as reason.
func (s *Session) refusal(c call, why error, reason string) *message.Record {
	rec := s.packer().Refused(records.Call{ID: c.rec.ID, Name: c.call.Name, CallID: c.call.ID}, why, reason)
	rec.ID = newID()
	return rec
}

// packer builds the session's tool_result records that the runner does
// not: of calls that never ran.
func (s *Session) packer() *records.Packer {
	return &records.Packer{SessionID: s.opts.SessionID}
}

// addResults adds the results of a turn's calls to the history, as one
// user message, in the order given.
func (s *Session) addResults(recs []*message.Record) {
	parts := make([]Part, len(recs))
	for i, rec := range recs {
		parts[i] = Part{ToolResult: resultOf(rec)}
	}
	s.fitResults(s.history, parts)
	s.history = append(s.history, Message{Role: message.RoleUser, Parts: parts})
	s.last = recs[len(recs)-1].ID
}

// resultOf is what the model reads of a tool_result record: its content,
// or for an error a string naming the kind and saying what went wrong.
func resultOf(rec *message.Record) *ToolResult {
	r := &ToolResult{CallID: rec.CallID, Name: rec.Name, Content: rec.Content, IsError: rec.IsError || rec.Error != nil}
	if r.IsError {
		msg := "the call failed"
		if rec.Error != nil {
			msg = string(rec.Error.Kind) + ": " + rec.Error.Message
		}
		r.Content, _ = json.Marshal(msg)
	}
	if rec.HookFeedback != "" {
		// What the hooks after the call said of its result is read with
		// it, as Claude Code's PostToolUse hooks speak to Claude.
		content := r.Content
		if len(content) == 0 {
			content = json.RawMessage("null")
		}
		r.Content, _ = json.Marshal(struct {
			Result       json.RawMessage `json:"result"`
			HookFeedback string          `json:"hook_feedback"`
		}{content, rec.HookFeedback})
	}
	return r
}

func (s *Session) newRecord(role message.Role, typ message.Type) *message.Record {
	return &message.Record{
		ID:        newID(),
		SessionID: s.opts.SessionID,
		ParentID:  s.last,
		Role:      role,
		Type:      typ,
		Status:    message.StatusResponded,
		CreatedAt: time.Now().UTC(),
	}
}

// append stores records and makes the last one the parent of what comes
// next. An interrupt does not stop it: what happened must be recorded.
func (s *Session) append(ctx context.Context, recs ...*message.Record) error {
	for _, rec := range recs {
		tracing.Stamp(ctx, rec)
	}
	if err := s.opts.Store.Append(context.WithoutCancel(ctx), recs...); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	s.last = recs[len(recs)-1].ID
	return nil
}

// AnswerText is the text of a model turn, thoughts left out: what the
// user reads as its answer.
func AnswerText(m Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.ToolCall == nil && p.ToolResult == nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// DecodeArgs decodes a call's arguments, numbers kept as written so that
// validation sees 1 and 1.0 as the model sent them, and an int64 id does
// not pass through a float on its way back to a provider. Empty and null
// arguments are the empty object.
func DecodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, err
	}
	return args, nil
}

// objectOrEmpty is raw when it is a JSON object, and {} otherwise.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return raw
}

// newID is a record or session id: a UUIDv7 from the runner's generator,
// so that a turn's records and its tool results sort in the order made.
func newID() string { return message.NewID() }
