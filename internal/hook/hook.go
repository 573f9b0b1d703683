// Package hook runs the config files' hooks as Claude Code runs its own,
// so that a hook script written for Claude Code works unmodified.
//
// A hook is a program run by sh -c in the working directory, given one
// JSON object on standard input (session_id, transcript_path, cwd,
// hook_event_name, tool_name, tool_input, tool_use_id, and after a call
// tool_response).
// Exit 0 lets the call go on, and its standard output may be JSON that
// decides the call (hookSpecificOutput.permissionDecision allow, deny, ask
// or defer, with permissionDecisionReason) or replaces its arguments
// (updatedInput); exit 2 blocks the call, its standard error the reason;
// any other end — another status, a timeout, a program that cannot start
// — is a hook error, told, and the call goes on. What the hooks decide is
// the caller's to combine with the rules; this package only runs them.
//
// A hook program gets the environment every program kesoku starts gets
// (package secret's Environ: no secret kesoku holds), with
// CLAUDE_PROJECT_DIR set to the working directory, as Claude Code sets it.
// It runs in a process group of its own through a Launcher (the tool
// set's), which stops the whole group on a timeout and keeps any of it
// from outliving kesoku.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/termtext"
)

// DefaultTimeout bounds a hook whose declaration gives no timeout, as
// Claude Code bounds its own.
const DefaultTimeout = 60 * time.Second

// BlockStatus is the exit status by which a hook blocks a call.
const BlockStatus = 2

// maxStdout bounds what a hook may print on standard output, which is
// held whole to be read as JSON (an updatedInput may hold a file's
// content); past it the hook is stopped, a hook error. maxStderr bounds
// what is kept of its standard error, the reason of a block: the rest is
// read and dropped.
const (
	maxStdout = 4 << 20
	maxStderr = 64 << 10
)

// Decision is what a PreToolUse hook decided of a call.
type Decision string

// The decisions, in Claude Code's words. A hook that decides nothing lets
// the call go on as the rules decide.
const (
	None  Decision = ""
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Defer Decision = "defer"
	Deny  Decision = "deny"
)

// strength orders the decisions of several hooks: deny beats defer beats
// ask beats allow, as in Claude Code.
func (d Decision) strength() int {
	return slices.Index([]Decision{None, Allow, Ask, Defer, Deny}, d)
}

// Launcher runs a program as kesoku runs every program it starts: cmd,
// made with exec.CommandContext, is started in a process group of its
// own, the group stopped when the context ends, what is left of it killed
// once the program has ended, none of it outliving kesoku. It returns
// what cmd.Wait returns. toolsource's Set is the one kesoku uses.
type Launcher interface {
	Launch(cmd *exec.Cmd) error
}

// Options say which hooks run and how.
type Options struct {
	// Hooks are the hooks declared, the user's first (config.Hooks).
	Hooks []*config.Hook
	// AWD is where the hooks run: their cwd, and CLAUDE_PROJECT_DIR.
	AWD string
	// Launch runs the programs.
	Launch Launcher
	// Secrets are kesoku's: no hook gets one in its environment, and none
	// is in what is told of a hook.
	Secrets *secret.Redactor
	// Environ is kesoku's environment (os.Environ when nil), of which a
	// hook gets what every program gets.
	Environ []string
	// Shell runs a hook's command ("sh" when ""), with -c, as Claude Code
	// runs it.
	Shell string
	// Warn, when set, is told of hook errors (the call goes on) and of
	// what hooks have to say to the user (a systemMessage), by Step and
	// After. What a hook wrote is escaped in it, the secrets hidden.
	Warn func(string)
}

// Runner runs the hooks of a command. One Runner serves every call, at
// once.
type Runner struct {
	opts Options
}

// New returns a Runner of opts' hooks; nil when there are none, which
// runs nothing.
func New(opts Options) *Runner {
	if len(opts.Hooks) == 0 {
		return nil
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.Shell == "" {
		opts.Shell = "sh"
	}
	return &Runner{opts: opts}
}

// Call is the call a hook is told of.
type Call struct {
	// SessionID is the run's or the session's.
	SessionID string
	// TranscriptPath is the records file (-o) or the session's transcript,
	// "" when there is none.
	TranscriptPath string
	// ToolName and ToolUseID are the call's tool and its id.
	ToolName, ToolUseID string
	// ToolInput is the call's arguments.
	ToolInput map[string]any
	// ToolResponse, after the call, is what it returned (its record's
	// content).
	ToolResponse json.RawMessage
}

// input is the JSON object a hook reads on standard input.
type input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      map[string]any  `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
}

// Outcome is what the hooks of one event made of a call.
type Outcome struct {
	// Decision is the strongest decision of the hooks (PreToolUse): deny,
	// then defer, then ask, then allow; None when none decided.
	Decision Decision
	// Reason is the decision's reason as the deciding hook gave it: its
	// standard error when it blocked with exit 2, its
	// permissionDecisionReason otherwise.
	Reason string
	// By is the hook that decided, nil when none did.
	By *config.Hook
	// UpdatedInput, when a hook gave one (PreToolUse), replaces the call's
	// arguments; it is to be validated again. The first hook, in the order
	// declared, that gave one wins.
	UpdatedInput map[string]any
	// Feedback (PostToolUse) is what the hooks say of the result, for the
	// model: the standard error of a hook that exited 2, a reason given
	// with decision: block, an additionalContext. Blocked says a hook
	// exited 2 or said block.
	Feedback []string
	Blocked  bool
	// Errors are the hook errors: a hook that exited with another status,
	// timed out, could not start, or printed what is not its protocol.
	// The call goes on; they are told on standard error.
	Errors []*Error
	// Messages are the systemMessages of the hooks, for the user.
	Messages []string
}

// Error is a hook that failed: the call goes on without it.
type Error struct {
	Hook  *config.Hook
	Event string
	Tool  string
	// Status is the exit status, -1 when the hook did not exit (it timed
	// out, was killed, or could not start).
	Status int
	// TimedOut says the hook outlived its timeout, which was Timeout.
	TimedOut bool
	Timeout  time.Duration
	// Err is what went wrong besides: a start that failed, output that is
	// no answer.
	Err error
	// Stderr is the end of its standard error.
	Stderr string
}

// Error words the failure for a terminal: what the config and the hook
// wrote is escaped.
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s hook %s (%s) for %s", e.Event, termtext.Escape(strconv.Quote(e.Hook.Command)), termtext.Escape(e.Hook.Pos.String()), termtext.Escape(e.Tool))
	switch {
	case e.TimedOut:
		msg += fmt.Sprintf(": still running after %v: stopped", e.Timeout)
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	default:
		msg += fmt.Sprintf(": exited with status %d", e.Status)
	}
	if e.Stderr != "" {
		msg += "; standard error: " + termtext.Lines(e.Stderr)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Matches reports whether any hook of event runs for a call of tool: a
// call no hook matches costs nothing more.
func (r *Runner) Matches(event, tool string) bool {
	return r != nil && slices.ContainsFunc(r.opts.Hooks, func(h *config.Hook) bool { return h.Event == event && h.Matches(tool) })
}

// Pre runs the PreToolUse hooks that match c's tool, at once, and
// combines what they decided. Its error is ctx's, when ctx ended before
// the hooks did (an interrupt): the call is then not to run.
func (r *Runner) Pre(ctx context.Context, c Call) (Outcome, error) {
	return r.run(ctx, config.PreToolUse, c)
}

// Post runs the PostToolUse hooks that match c's tool, c.ToolResponse
// being what the call returned.
func (r *Runner) Post(ctx context.Context, c Call) (Outcome, error) {
	return r.run(ctx, config.PostToolUse, c)
}

func (r *Runner) run(ctx context.Context, event string, c Call) (Outcome, error) {
	var hooks []*config.Hook
	if r != nil {
		for _, h := range r.opts.Hooks {
			// The same command twice runs once, as in Claude Code.
			if h.Event == event && h.Matches(c.ToolName) && !slices.ContainsFunc(hooks, func(o *config.Hook) bool { return o.Command == h.Command }) {
				hooks = append(hooks, h)
			}
		}
	}
	if len(hooks) == 0 {
		return Outcome{}, nil
	}
	in := input{
		SessionID: c.SessionID, TranscriptPath: c.TranscriptPath, Cwd: r.opts.AWD,
		HookEventName: event, ToolName: c.ToolName, ToolInput: c.ToolInput, ToolUseID: c.ToolUseID,
		ToolResponse: c.ToolResponse,
	}
	if in.ToolInput == nil {
		in.ToolInput = map[string]any{}
	}
	if event == config.PostToolUse && len(in.ToolResponse) == 0 {
		in.ToolResponse = json.RawMessage("null")
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s hooks for %s: encode the call: %w", event, c.ToolName, err)
	}
	// Every hook at once, as in Claude Code; their answers are combined
	// in the order declared, whatever order they end in.
	answers := make([]answer, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() { answers[i] = r.runOne(ctx, event, c.ToolName, h, stdin) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	var o Outcome
	for i, a := range answers {
		h := hooks[i]
		if a.err != nil {
			o.Errors = append(o.Errors, a.err)
			continue
		}
		o.Messages = append(o.Messages, a.messages...)
		if a.feedback != "" {
			o.Feedback = append(o.Feedback, a.feedback)
		}
		o.Blocked = o.Blocked || a.blocked
		if a.decision.strength() > o.Decision.strength() {
			o.Decision, o.Reason, o.By = a.decision, a.reason, h
		}
		if a.updated != nil && o.UpdatedInput == nil {
			o.UpdatedInput = a.updated
			if o.By == nil {
				o.By = h
			}
		}
	}
	return o, nil
}

// answer is what one hook said.
type answer struct {
	decision Decision
	reason   string
	updated  map[string]any
	feedback string
	blocked  bool
	messages []string
	err      *Error
}

// runOne runs hook h of event for a call of tool, stdin its input.
func (r *Runner) runOne(ctx context.Context, event, tool string, h *config.Hook, stdin []byte) answer {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimedOut)
	defer cancel()
	hctx, stop := context.WithCancelCause(hctx)
	defer stop(nil)
	cmd := exec.CommandContext(hctx, r.opts.Shell, "-c", h.Command)
	cmd.Dir = r.opts.AWD
	cmd.Env = secret.Environ(r.opts.Environ, []string{"CLAUDE_PROJECT_DIR=" + r.opts.AWD}, r.opts.Secrets)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &bounded{max: maxStdout, over: func() { stop(errTooMuchOutput) }}
	stderr := &bounded{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	werr := r.opts.Launch.Launch(cmd)
	fail := &Error{Hook: h, Event: event, Tool: tool, Status: -1, Stderr: r.redact(stderr.tail())}
	switch {
	case ctx.Err() != nil:
		return answer{} // the caller says the call was interrupted
	case errors.Is(context.Cause(hctx), errTimedOut):
		fail.TimedOut, fail.Timeout = true, timeout
		return answer{err: fail}
	case errors.Is(context.Cause(hctx), errTooMuchOutput):
		fail.Err = fmt.Errorf("printed more than %d MiB on standard output: stopped", maxStdout>>20)
		return answer{err: fail}
	}
	if cmd.ProcessState == nil {
		fail.Err = fmt.Errorf("could not start %s: %v", r.opts.Shell, werr)
		return answer{err: fail}
	}
	// exec.ErrWaitDelay: the hook ended, and something it left behind
	// held its output open; the launcher has killed it. Its status
	// stands.
	status := cmd.ProcessState.ExitCode()
	if status < 0 {
		fail.Err = fmt.Errorf("ended: %v", cmd.ProcessState)
		return answer{err: fail}
	}
	switch status {
	case 0:
	case BlockStatus:
		reason := r.redact(strings.TrimSpace(stderr.text()))
		if event == config.PostToolUse {
			return answer{blocked: true, feedback: reason}
		}
		if reason == "" {
			reason = "blocked by a hook"
		}
		return answer{decision: Deny, reason: reason}
	default:
		fail.Status = status
		return answer{err: fail}
	}
	a, err := parseAnswer(event, stdout.buf.Bytes())
	if err != nil {
		fail.Status, fail.Err = 0, err
		return answer{err: fail}
	}
	a.reason = r.redact(a.reason)
	a.feedback = r.redact(a.feedback)
	return a
}

func (r *Runner) redact(s string) string { return r.opts.Secrets.String(s) }

var (
	errTimedOut      = errors.New("the hook timed out")
	errTooMuchOutput = errors.New("the hook printed too much")
)

// output is the JSON a hook may print on standard output when it exits 0,
// as Claude Code reads it.
type output struct {
	// Continue false stops everything in Claude Code; here it blocks the
	// call (PreToolUse) with StopReason as the reason.
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	// Decision and Reason are the older form: approve or block.
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseAnswer reads what a hook that exited 0 printed: JSON of Claude
// Code's hook output, or text, which decides nothing (Claude Code shows
// it in its transcript).
func parseAnswer(event string, out []byte) (answer, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 || out[0] != '{' {
		return answer{}, nil
	}
	var o output
	if err := json.Unmarshal(out, &o); err != nil {
		return answer{}, fmt.Errorf("printed JSON that is no hook output: %v", err)
	}
	var a answer
	if o.SystemMessage != "" {
		a.messages = append(a.messages, o.SystemMessage)
	}
	if o.Continue != nil && !*o.Continue {
		reason := o.StopReason
		if reason == "" {
			reason = "a hook said not to continue"
		}
		if event == config.PreToolUse {
			return answer{decision: Deny, reason: reason, messages: a.messages}, nil
		}
		a.blocked, a.feedback = true, reason
	}
	switch o.Decision {
	case "":
	case "approve":
		a.decision, a.reason = Allow, o.Reason
	case "block":
		a.decision, a.reason = Deny, o.Reason
	default:
		return answer{}, fmt.Errorf("printed decision %q: want approve or block", o.Decision)
	}
	if event == config.PostToolUse {
		if a.decision == Deny {
			a.blocked = true
			a.feedback = strings.TrimSpace(strings.Join([]string{a.feedback, o.Reason}, "\n"))
		}
		a.decision, a.reason = None, ""
	}
	hs := o.HookSpecificOutput
	if hs == nil {
		return a, nil
	}
	if hs.AdditionalContext != "" {
		a.feedback = strings.TrimSpace(strings.Join([]string{a.feedback, hs.AdditionalContext}, "\n"))
	}
	if event != config.PreToolUse {
		return a, nil
	}
	switch d := Decision(hs.PermissionDecision); d {
	case None:
	case Allow, Deny, Ask, Defer:
		// The newer fields win over the older.
		a.decision, a.reason = d, hs.PermissionDecisionReason
	default:
		return answer{}, fmt.Errorf("printed permissionDecision %q: want allow, deny, ask or defer", hs.PermissionDecision)
	}
	if raw := bytes.TrimSpace(hs.UpdatedInput); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &a.updated); err != nil || a.updated == nil {
			return answer{}, fmt.Errorf("printed an updatedInput that is no JSON object: %s", cutText(string(raw)))
		}
	}
	return a, nil
}

// cutText is s cut for a message.
func cutText(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// bounded holds what a program writes up to max bytes. Past it, the rest
// is read and dropped, and over (when set) is called once: a program
// that writes gigabytes costs no memory.
type bounded struct {
	mu   sync.Mutex
	max  int
	buf  bytes.Buffer
	cut  bool
	over func()
}

func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room < len(p) {
		b.buf.Write(p[:max(room, 0)])
		if !b.cut && b.over != nil {
			b.over()
		}
		b.cut = true
		return len(p), nil
	}
	return b.buf.Write(p)
}

// text is what was held, valid UTF-8.
func (b *bounded) text() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.ToValidUTF8(b.buf.String(), "\uFFFD")
	if b.cut {
		s += "…"
	}
	return s
}

// tail is the end of what was held, for a message: its last lines.
func (b *bounded) tail() string {
	s := strings.TrimSpace(b.text())
	const keep = 2 << 10
	if len(s) > keep {
		s = "…" + strings.ToValidUTF8(s[len(s)-keep:], "")
	}
	return s
}
