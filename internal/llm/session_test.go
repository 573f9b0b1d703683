package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/llm/openai"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

const testKey = "sk-test-session-key-2c9e71"

// testTools is a registry of typed tools: a sum, a tool that always
// fails, and a sleep that honours cancellation.
func testTools(t *testing.T) *toolset.Set {
	t.Helper()
	reg := registry.New()
	type sumArgs struct {
		A int64 `json:"a"`
		B int64 `json:"b"`
	}
	type sleepArgs struct {
		Seconds float64 `json:"seconds"`
	}
	for _, err := range []error{
		registry.Add(reg, "calculate_sum", "Add two integers.", func(_ context.Context, _ *registry.ToolContext, in sumArgs) (int64, error) {
			return in.A + in.B, nil
		}),
		registry.Add(reg, "always_fails", "Fail.", func(context.Context, *registry.ToolContext, struct{}) (any, error) {
			return nil, errors.New("disk on fire")
		}),
		registry.Add(reg, "sleep", "Sleep.", func(ctx context.Context, _ *registry.ToolContext, in sleepArgs) (string, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				return "slept", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return toolset.Of(reg)
}

// rig is a session against a fake provider, with its transcript in a
// JSON Lines file.
type rig struct {
	srv      *llmtest.Server
	provider llm.Provider
	path     string
	w        *records.Writer
	reg      *toolset.Set
}

func newRig(t *testing.T, p llmtest.Provider, replies ...llmtest.Reply) *rig {
	t.Helper()
	return newRigWith(t, p, llm.ClientOptions{}, replies...)
}

// newRigWith is newRig with a client built from opts.
func newRigWith(t *testing.T, p llmtest.Provider, opts llm.ClientOptions, replies ...llmtest.Reply) *rig {
	t.Helper()
	r := &rig{srv: llmtest.NewServer(p, testKey, replies...), reg: testTools(t)}
	t.Cleanup(r.srv.Close)
	r.path = filepath.Join(t.TempDir(), "session.jsonl")
	opts.APIKey, opts.BaseURL, opts.Retry = testKey, r.srv.BaseURL(), llm.Retry{MaxRetries: -1}
	var err error
	switch p {
	case llmtest.Gemini:
		opts.Model = "gemini-test"
		r.provider, err = gemini.New(context.Background(), opts)
	case llmtest.Claude:
		opts.Model = "claude-test"
		r.provider, err = claude.New(opts)
	case llmtest.OpenAI:
		opts.Model = "gpt-test"
		r.provider, err = openai.New(opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.open(t)
	return r
}

func (r *rig) open(t *testing.T) {
	t.Helper()
	w, err := records.Append(r.path)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	t.Cleanup(func() { w.Close() })
}

func (r *rig) session(opts llm.SessionOptions) *llm.Session {
	opts.Provider = r.provider
	opts.Store = r.w
	if opts.Runner == nil {
		opts.Runner = runner.New(r.reg, runner.Options{Jobs: 4, Grace: 50 * time.Millisecond})
	}
	if opts.Tools == nil {
		opts.Tools = r.reg.All()
	}
	return llm.NewSession(opts)
}

// records are the transcript's records, a turn's results in the order of
// their calls: they are written as the calls return, in any order.
func (r *rig) records(t *testing.T) []*message.Record {
	t.Helper()
	recs := r.rawRecords(t)
	at := map[string]int{}
	for i, rec := range recs {
		at[rec.ID] = i
	}
	for i := 0; i < len(recs); {
		j := i
		for j < len(recs) && recs[j].Type == message.TypeToolResult {
			j++
		}
		if j == i {
			i++
			continue
		}
		slices.SortStableFunc(recs[i:j], func(a, b *message.Record) int { return at[a.ParentID] - at[b.ParentID] })
		i = j
	}
	return recs
}

// rawRecords are the transcript's records in the order written.
func (r *rig) rawRecords(t *testing.T) []*message.Record {
	t.Helper()
	if err := r.w.Flush(); err != nil {
		t.Fatal(err)
	}
	var recs []*message.Record
	if err := records.ReadFile(r.path, func(rec *message.Record) error { recs = append(recs, rec); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

// shape is what a test checks of a record.
type shape struct {
	Role, Type, Status, Name, CallID, Content, ErrorKind string
	// Parent is the index of the parent record, -1 for none.
	Parent int
	Model  bool
}

func shapes(recs []*message.Record) []shape {
	index := map[string]int{}
	out := make([]shape, len(recs))
	for i, rec := range recs {
		index[rec.ID] = i
		s := shape{Role: string(rec.Role), Type: string(rec.Type), Status: string(rec.Status), Name: rec.Name,
			CallID: rec.CallID, Content: string(rec.Content), Parent: -1, Model: rec.Model != ""}
		if p, ok := index[rec.ParentID]; ok {
			s.Parent = p
		} else if rec.ParentID != "" {
			s.Parent = -2 // dangling
		}
		if rec.Error != nil {
			s.ErrorKind = string(rec.Error.Kind)
		}
		if strings.HasPrefix(s.CallID, "call_") {
			s.CallID = "call_*" // generated
		}
		out[i] = s
	}
	return out
}

// both runs f against every provider's fake (the name is older than the
// third).
func both(t *testing.T, f func(t *testing.T, p llmtest.Provider)) {
	for _, p := range []llmtest.Provider{llmtest.Gemini, llmtest.Claude, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

func TestSessionParallelCalls(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p,
			llmtest.Reply{Text: "Let me add.", Calls: []llmtest.Call{
				{ID: "id1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "id2", Name: "calculate_sum", Args: map[string]any{"a": 10, "b": 20}},
			}},
			llmtest.Reply{Text: "3 and 30."},
		)
		var streamed strings.Builder
		s := r.session(llm.SessionOptions{OnText: func(s string) { streamed.WriteString(s) }})
		answer, err := s.Send(context.Background(), "add 1+2 and 10+20")
		if err != nil {
			t.Fatal(err)
		}
		if answer != "3 and 30." {
			t.Errorf("answer = %q", answer)
		}
		if got := streamed.String(); got != "Let me add.3 and 30." {
			t.Errorf("streamed = %q", got)
		}
		want := []shape{
			{Role: "user", Type: "text", Status: "responded", Content: `"add 1+2 and 10+20"`, Parent: -1},
			{Role: "assistant", Type: "text", Status: "responded", Content: `"Let me add."`, Parent: 0, Model: true},
			{Role: "assistant", Type: "tool_call", Status: "responded", Name: "calculate_sum", CallID: "id1", Content: `{"a":1,"b":2}`, Parent: 1, Model: true},
			{Role: "assistant", Type: "tool_call", Status: "responded", Name: "calculate_sum", CallID: "id2", Content: `{"a":10,"b":20}`, Parent: 1, Model: true},
			{Role: "tool", Type: "tool_result", Status: "responded", Name: "calculate_sum", CallID: "id1", Content: "3", Parent: 2},
			{Role: "tool", Type: "tool_result", Status: "responded", Name: "calculate_sum", CallID: "id2", Content: "30", Parent: 3},
			{Role: "assistant", Type: "text", Status: "responded", Content: `"3 and 30."`, Parent: 5, Model: true},
		}
		recs := r.records(t)
		if diff := cmp.Diff(want, shapes(recs)); diff != "" {
			t.Errorf("transcript mismatch (-want +got):\n%s", diff)
		}
		for _, rec := range recs {
			if rec.SessionID != s.ID() {
				t.Errorf("record %s has session %q, want %q", rec.ID, rec.SessionID, s.ID())
			}
		}
		checkResultsSent(t, p, r.srv.Bodies()[1], []sentResult{{"id1", "3", false}, {"id2", "30", false}})
	})
}

// sentResult is a tool result as a request carried it.
type sentResult struct {
	ID, Value string
	IsError   bool
}

// checkResultsSent checks that the last message of a request body holds
// exactly the results given, in order, in the provider's shape: one
// content of functionResponses for Gemini, tool_result blocks in one user
// message for Claude, tool messages for OpenAI. The results come first;
// text may follow them (a prompt sent with them), nothing else.
func checkResultsSent(t *testing.T, p llmtest.Provider, body map[string]any, want []sentResult) {
	t.Helper()
	var got []sentResult
	text := false
	switch p {
	case llmtest.Gemini:
		contents := body["contents"].([]any)
		last := contents[len(contents)-1].(map[string]any)
		if last["role"] != "user" {
			t.Errorf("last content's role = %v", last["role"])
		}
		for _, part := range last["parts"].([]any) {
			fr, ok := part.(map[string]any)["functionResponse"].(map[string]any)
			if _, isText := part.(map[string]any)["text"]; isText {
				text = true
				continue
			}
			if !ok || text {
				t.Errorf("a part that is not a functionResponse, or one after text: %v", part)
				continue
			}
			resp := fr["response"].(map[string]any)
			v, isErr := resp["output"], false
			if e, ok := resp["error"]; ok {
				v, isErr = e, true
			}
			id, _ := fr["id"].(string)
			got = append(got, sentResult{id, fmt.Sprint(v), isErr})
		}
	case llmtest.Claude:
		msgs := body["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		if last["role"] != "user" {
			t.Errorf("last message's role = %v", last["role"])
		}
		for _, block := range last["content"].([]any) {
			b := block.(map[string]any)
			if b["type"] == "text" {
				text = true
				continue
			}
			if b["type"] != "tool_result" || text {
				t.Errorf("a block that is not a tool_result, or one after text: %v", b)
				continue
			}
			text := ""
			if c, ok := b["content"].([]any); ok && len(c) > 0 {
				text = c[0].(map[string]any)["text"].(string)
			}
			isErr, _ := b["is_error"].(bool)
			got = append(got, sentResult{b["tool_use_id"].(string), text, isErr})
		}
	case llmtest.OpenAI:
		// One tool message per result after the assistant's calls, then
		// perhaps the prompt. Chat Completions has no error flag: an
		// error says so in its text ("tool_error: ...").
		want = slices.Clone(want)
		for i := range want {
			want[i].IsError = false
		}
		msgs := body["messages"].([]any)
		start := len(msgs)
		for start > 0 && msgs[start-1].(map[string]any)["role"] != "assistant" {
			start--
		}
		for _, m := range msgs[start:] {
			m := m.(map[string]any)
			if m["role"] != "tool" || text {
				if m["role"] != "user" || text {
					t.Errorf("a message that is not a tool result, or one after the prompt: %v", m)
				}
				text = true
				continue
			}
			content, _ := m["content"].(string)
			got = append(got, sentResult{m["tool_call_id"].(string), content, false})
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results sent mismatch (-want +got):\n%s", diff)
	}
}

func TestSessionGeminiCallsWithoutIDs(t *testing.T) {
	t.Parallel()
	r := newRig(t, llmtest.Gemini,
		llmtest.Reply{Calls: []llmtest.Call{
			{Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}, ThoughtSignature: "c2lnMQ=="},
			{Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
		}},
		llmtest.Reply{Text: "3 and 7."},
	)
	s := r.session(llm.SessionOptions{})
	if _, err := s.Send(context.Background(), "sums"); err != nil {
		t.Fatal(err)
	}
	recs := r.records(t)
	got := shapes(recs)
	for i := 1; i <= 4; i++ {
		if got[i].CallID != "call_*" {
			t.Errorf("record %d: call_id %q, want a generated one", i, recs[i].CallID)
		}
	}
	if recs[1].CallID == recs[2].CallID || recs[3].CallID != recs[1].CallID || recs[4].CallID != recs[2].CallID {
		t.Errorf("call ids: calls %s %s, results %s %s", recs[1].CallID, recs[2].CallID, recs[3].CallID, recs[4].CallID)
	}
	if got[3].Parent != 1 || got[4].Parent != 2 {
		t.Errorf("results' parents = %d, %d, want 1, 2", got[3].Parent, got[4].Parent)
	}
	// The model gave no ids, so none go back: responses are matched by
	// their place; and the signature goes back with its call.
	checkResultsSent(t, llmtest.Gemini, r.srv.Bodies()[1], []sentResult{{"", "3", false}, {"", "7", false}})
	model := r.srv.Bodies()[1]["contents"].([]any)[1].(map[string]any)
	first := model["parts"].([]any)[0].(map[string]any)
	if first["thoughtSignature"] != "c2lnMQ==" {
		t.Errorf("first call part = %v, want its thoughtSignature echoed", first)
	}
	if _, ok := first["functionCall"].(map[string]any)["id"]; ok {
		t.Errorf("a generated id went to the model: %v", first)
	}
}

func TestSessionToolErrorsGoBackToTheModel(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p,
			llmtest.Reply{Calls: []llmtest.Call{
				{ID: "e1", Name: "always_fails"},
				{ID: "e2", Name: "calculate_summ", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "e3", Name: "calculate_sum", Args: map[string]any{"a": "one", "b": 2}},
			}},
			llmtest.Reply{Calls: []llmtest.Call{{ID: "ok", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}}}},
			llmtest.Reply{Text: "It is 3."},
		)
		s := r.session(llm.SessionOptions{})
		answer, err := s.Send(context.Background(), "try")
		if err != nil {
			t.Fatal(err)
		}
		if answer != "It is 3." {
			t.Errorf("answer = %q", answer)
		}
		var kinds []string
		for _, rec := range r.records(t) {
			if rec.Type == message.TypeToolResult && rec.Error != nil {
				kinds = append(kinds, string(rec.Error.Kind))
			}
		}
		if diff := cmp.Diff([]string{"tool_error", "unknown_tool", "invalid_args"}, kinds); diff != "" {
			t.Errorf("error kinds mismatch (-want +got):\n%s", diff)
		}
		body := r.srv.Bodies()[1]
		js, _ := json.Marshal(body)
		for _, want := range []string{"disk on fire", `did you mean \"calculate_sum\"`, "args.a"} {
			if !strings.Contains(string(js), want) {
				t.Errorf("the second request does not tell the model %q", want)
			}
		}
		checkResultsSent(t, p, r.srv.Bodies()[2], []sentResult{{"ok", "3", false}})
	})
}

func TestSessionMaxTurns(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		again := llmtest.Reply{Calls: []llmtest.Call{{Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 1}}}}
		r := newRig(t, p, again, again, again)
		s := r.session(llm.SessionOptions{MaxTurns: 2})
		_, err := s.Send(context.Background(), "loop")
		var mt *llm.MaxTurnsError
		if !errors.As(err, &mt) || mt.Turns != 2 {
			t.Fatalf("error = %v, want MaxTurnsError{2}", err)
		}
		if n := len(r.srv.Requests()); n != 2 {
			t.Errorf("%d model requests, want 2", n)
		}
		recs := r.records(t)
		last := recs[len(recs)-1]
		if last.Type != message.TypeToolResult || last.Status != message.StatusResponded {
			t.Errorf("last record = %+v, want the last turn's result", last)
		}
	})
}

func TestSessionAPIErrorIsReported(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p, llmtest.Reply{Status: 400, Error: "messages: the history is malformed in some way"})
		s := r.session(llm.SessionOptions{})
		_, err := s.Send(context.Background(), "hi")
		if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "the history is malformed in some way") {
			t.Fatalf("error = %v, want the provider's status and message", err)
		}
	})
}

func TestSessionInterruptWhileThinking(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p, llmtest.Reply{Text: "too late", Delay: llmtest.Duration(time.Minute)}, llmtest.Reply{Text: "resumed"})
		s := r.session(llm.SessionOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		cancelWhen(t, cancel, func() bool { return len(r.srv.Requests()) == 1 })
		_, err := s.Send(ctx, "think hard")
		if !errors.Is(err, llm.ErrInterrupted) {
			t.Fatalf("error = %v, want ErrInterrupted", err)
		}
		if reqs := r.srv.Requests(); len(reqs) != 1 || !r.srv.WaitCancelled(nil, 0) {
			t.Errorf("the model request was not cancelled: %+v", reqs)
		}
		// The same session goes on (the interactive loop).
		answer, err := s.Send(context.Background(), "again")
		if err != nil || answer != "resumed" {
			t.Fatalf("after the interrupt: %q, %v", answer, err)
		}
		want := []shape{
			{Role: "user", Type: "text", Status: "responded", Content: `"think hard"`, Parent: -1},
			{Role: "user", Type: "text", Status: "responded", Content: `"again"`, Parent: 0},
			{Role: "assistant", Type: "text", Status: "responded", Content: `"resumed"`, Parent: 1, Model: true},
		}
		if diff := cmp.Diff(want, shapes(r.records(t))); diff != "" {
			t.Errorf("transcript mismatch (-want +got):\n%s", diff)
		}
	})
}

// cancelWhen cancels once cond holds: an interrupt at a known moment, not
// after a time that a loaded machine may not keep.
func cancelWhen(t *testing.T, cancel context.CancelFunc, cond func() bool) {
	t.Helper()
	t.Cleanup(cancel)
	go func() {
		for range 2000 {
			if cond() {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
}

// TestSessionInterruptWhileToolsRunThenResume is the plain case: the user
// interrupts while a call runs and another waits; the one running is
// cancelled, the one queued is dropped, both are recorded as aborted, and
// a resumed session sends a history with every call answered.
func TestSessionInterruptWhileToolsRunThenResume(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p, llmtest.Reply{Calls: []llmtest.Call{
			{ID: "s1", Name: "sleep", Args: map[string]any{"seconds": 30}},
			{ID: "s2", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
		}})
		run := runner.New(r.reg, runner.Options{Jobs: 1, Grace: 20 * time.Millisecond})
		s := r.session(llm.SessionOptions{Runner: run})
		ctx, cancel := context.WithCancel(context.Background())
		cancelWhen(t, cancel, func() bool {
			data, _ := os.ReadFile(r.path)
			return bytes.Count(data, []byte(`"type":"tool_call"`)) == 2
		})
		if _, err := s.Send(ctx, "sleep then add"); !errors.Is(err, llm.ErrInterrupted) {
			t.Fatalf("error = %v, want ErrInterrupted", err)
		}
		recs := r.records(t)
		got := shapes(recs)
		if len(got) != 5 || got[3].Status != "aborted" || got[4].Status != "aborted" || got[3].ErrorKind != "aborted" || got[4].ErrorKind != "aborted" {
			t.Fatalf("transcript = %+v, want both calls aborted", got)
		}
		r.w.Close()

		// Resume from the file, in a new session, as --resume does.
		r.open(t)
		r.srv.Add(llmtest.Reply{Text: "Sorry, I was interrupted."})
		resumed := r.session(llm.SessionOptions{})
		if err := resumed.Resume(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		if resumed.ID() != s.ID() {
			t.Errorf("resumed session id %q, want %q", resumed.ID(), s.ID())
		}
		answer, err := resumed.Send(context.Background(), "what happened?")
		if err != nil {
			t.Fatal(err)
		}
		if answer != "Sorry, I was interrupted." {
			t.Errorf("answer = %q", answer)
		}
		// The results and then the new prompt, in one message.
		body := r.srv.Bodies()[1]
		checkResultsSent(t, p, body, []sentResult{
			{"s1", "aborted: " + recs[3].Error.Message, true},
			{"s2", "aborted: interrupted before it started", true},
		})
		all := r.records(t)
		if got := shapes(all)[5]; got.Role != "user" || got.Parent != 4 {
			t.Errorf("the new prompt %+v does not follow the last record", got)
		}
	})
}

// TestResumeAnswersUnansweredCalls: a transcript cut off after the calls
// (a kill, a crash) gets aborted results appended before anything is sent.
func TestResumeAnswersUnansweredCalls(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p,
			llmtest.Reply{Calls: []llmtest.Call{
				{ID: "k1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "k2", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
			}},
			llmtest.Reply{Text: "3 and 7."},
		)
		s := r.session(llm.SessionOptions{})
		if _, err := s.Send(context.Background(), "sums"); err != nil {
			t.Fatal(err)
		}
		r.w.Close()
		recs := r.records(t)
		// Cut the file after the first result, as a kill would.
		var buf bytes.Buffer
		for _, rec := range recs[:4] {
			line, _ := records.AppendRecord(nil, rec)
			buf.Write(append(line, '\n'))
		}
		if err := os.WriteFile(r.path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cut := r.records(t)
		r.open(t)
		r.srv.Add(llmtest.Reply{Text: "one of them was lost"})
		resumed := r.session(llm.SessionOptions{})
		if err := resumed.Resume(context.Background(), cut); err != nil {
			t.Fatal(err)
		}
		if _, err := resumed.Send(context.Background(), "and?"); err != nil {
			t.Fatal(err)
		}
		all := shapes(r.records(t))
		fix := all[4]
		if fix.Type != "tool_result" || fix.Status != "aborted" || fix.CallID != "k2" || fix.Parent != 2 {
			t.Errorf("appended record = %+v, want an aborted result for k2", fix)
		}
		if all[5].Parent != 4 {
			t.Errorf("the new prompt's parent is %d, want the appended result", all[5].Parent)
		}
		body := r.srv.Bodies()[2]
		var lost string
		for _, rec := range r.records(t) {
			if rec.CallID == "k2" && rec.Type == message.TypeToolResult {
				lost = "aborted: " + rec.Error.Message
			}
		}
		checkResultsSent(t, p, body, []sentResult{{"k1", "3", false}, {"k2", lost, true}})

		// A second resume finds every call answered and appends nothing.
		n := len(r.records(t))
		again := r.session(llm.SessionOptions{})
		if err := again.Resume(context.Background(), r.records(t)); err != nil {
			t.Fatal(err)
		}
		if got := len(r.records(t)); got != n {
			t.Errorf("a second resume appended %d records", got-n)
		}
	})
}

// TestSessionNeverWritesTheKey: a provider (or a proxy) that echoes the
// key — in its text, streamed or not, in a call's arguments, in an error
// — and a tool that returns it do not get it into a record, the streamed
// text, the answer, the calls shown or an error.
func TestSessionNeverWritesTheKey(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		for _, stream := range []bool{false, true} {
			r := newRig(t, p,
				llmtest.Reply{Text: "I was given " + testKey, Calls: []llmtest.Call{
					{ID: "x", Name: "echo", Args: map[string]any{"text": "key=" + testKey}},
					{ID: "y", Name: "echo", Args: map[string]any{"text": "fail: " + testKey}},
				}},
				llmtest.Reply{Text: "The key is " + testKey + "."},
				llmtest.Reply{Status: 400, Error: "API key not valid: " + testKey},
			)
			type echoArgs struct {
				Text string `json:"text"`
			}
			g := registry.New()
			err := registry.Add(g, "echo", "Echo.", func(_ context.Context, _ *registry.ToolContext, in echoArgs) (string, error) {
				if strings.HasPrefix(in.Text, "fail: ") {
					return "", errors.New(in.Text)
				}
				return in.Text, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			echo, _ := g.Lookup("echo")
			r.reg.MustRegister(toolset.FromSpec(echo))
			var shown strings.Builder
			opts := llm.SessionOptions{
				Redactor: llm.NewRedactor(testKey),
				OnCalls: func(calls []*llm.ToolCall) {
					for _, c := range calls {
						shown.Write(c.Args)
					}
				},
			}
			if stream {
				opts.OnText = func(s string) { shown.WriteString(s) }
			}
			s := r.session(opts)
			answer, err := s.Send(context.Background(), "what is the key?")
			if err != nil {
				t.Fatal(err)
			}
			if answer != "The key is [redacted]." {
				t.Errorf("answer = %q", answer)
			}
			_, err = s.Send(context.Background(), "again")
			if err == nil || !strings.Contains(err.Error(), "API key not valid: [redacted]") {
				t.Errorf("error = %v, want the provider's message, redacted", err)
			}
			var api *llm.APIError
			if !errors.As(err, &api) {
				t.Errorf("error %T is no longer an APIError", err)
			}
			recs := r.records(t)
			data, rerr := os.ReadFile(r.path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			for what, text := range map[string]string{"transcript": string(data), "answer": answer, "error": err.Error(), "shown": shown.String()} {
				if strings.Contains(text, testKey) {
					t.Errorf("stream %v: the key is in the %s: %s", stream, what, text)
				}
			}
			if stream && !strings.Contains(shown.String(), "I was given [redacted]") {
				t.Errorf("streamed %q", shown.String())
			}
			if n := len(recs); n != 8 || string(recs[4].Content) != `"key=[redacted]"` || recs[5].Error == nil || recs[5].Error.Message != "fail: [redacted]" {
				t.Errorf("stream %v: records %+v, want the tool's result redacted", stream, shapes(recs))
			}
		}
	})
}

// TestSessionInterruptBeforeCallsStart is the interruption case at
// its sharpest: the user interjects after the model asked for tools but
// before any started. None runs; each is recorded as aborted and answered
// so, and the transcript stays whole.
func TestSessionInterruptBeforeCallsStart(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p, llmtest.Reply{Calls: []llmtest.Call{
			{ID: "q1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			{ID: "q2", Name: "always_fails"},
		}})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := r.session(llm.SessionOptions{OnCalls: func([]*llm.ToolCall) { cancel() }})
		if _, err := s.Send(ctx, "go"); !errors.Is(err, llm.ErrInterrupted) {
			t.Fatalf("error = %v, want ErrInterrupted", err)
		}
		want := []shape{
			{Role: "user", Type: "text", Status: "responded", Content: `"go"`, Parent: -1},
			{Role: "assistant", Type: "tool_call", Status: "responded", Name: "calculate_sum", CallID: "q1", Content: `{"a":1,"b":2}`, Parent: 0, Model: true},
			{Role: "assistant", Type: "tool_call", Status: "responded", Name: "always_fails", CallID: "q2", Content: `{}`, Parent: 0, Model: true},
			{Role: "tool", Type: "tool_result", Status: "aborted", Name: "calculate_sum", CallID: "q1", ErrorKind: "aborted", Parent: 1},
			{Role: "tool", Type: "tool_result", Status: "aborted", Name: "always_fails", CallID: "q2", ErrorKind: "aborted", Parent: 2},
		}
		if diff := cmp.Diff(want, shapes(r.records(t))); diff != "" {
			t.Errorf("transcript mismatch (-want +got):\n%s", diff)
		}
		h := s.History()
		if last := h[len(h)-1]; last.Role != message.RoleUser || len(last.Parts) != 2 || !last.Parts[0].ToolResult.IsError {
			t.Errorf("history ends with %+v, want the two aborted results", last)
		}
	})
}

// TestResumeWithTheOtherProvider: a transcript goes on with the other
// provider's model. What only its own provider understands (Gemini's
// thought signatures, Claude's thinking blocks) stays behind; the text,
// the calls and their results go over whole.
func TestResumeWithTheOtherProvider(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		from, to llmtest.Provider
		first    llmtest.Reply
		want     string // the model's turn as the second provider gets it
	}{
		{
			from: llmtest.Gemini, to: llmtest.Claude,
			first: llmtest.Reply{Text: "Adding.", ThoughtSignature: "c2lnMA==", Calls: []llmtest.Call{
				{Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}, ThoughtSignature: "c2lnMQ=="},
			}},
			want: `{"role":"assistant","content":[{"type":"text","text":"Adding."},{"type":"tool_use","id":"<call>","name":"calculate_sum","input":{"a":1,"b":2}}]}`,
		},
		{
			from: llmtest.Claude, to: llmtest.Gemini,
			first: llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{
				{ID: "toolu_1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			}},
			want: `{"role":"model","parts":[{"text":"Adding."},{"functionCall":{"id":"<call>","name":"calculate_sum","args":{"a":1,"b":2}}}]}`,
		},
		{
			// Gemini's thought summary and signatures stay with Gemini; its
			// calls without ids get ids OpenAI takes.
			from: llmtest.Gemini, to: llmtest.OpenAI,
			first: llmtest.Reply{Thought: "I should add.", Text: "Adding.", ThoughtSignature: "c2lnMA==", Calls: []llmtest.Call{
				{Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}, ThoughtSignature: "c2lnMQ=="},
			}},
			want: `{"role":"assistant","content":"Adding.","tool_calls":[{"id":"<call>","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":1,\"b\":2}"}}]}`,
		},
		{
			from: llmtest.Claude, to: llmtest.OpenAI,
			first: llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{
				{ID: "toolu_01A09q90qw90lq917835lq9", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			}},
			want: `{"role":"assistant","content":"Adding.","tool_calls":[{"id":"<call>","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":1,\"b\":2}"}}]}`,
		},
		{
			from: llmtest.OpenAI, to: llmtest.Claude,
			first: llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{
				{ID: "call_abc123", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			}},
			want: `{"role":"assistant","content":[{"type":"text","text":"Adding."},{"type":"tool_use","id":"<call>","name":"calculate_sum","input":{"a":1,"b":2}}]}`,
		},
		{
			from: llmtest.OpenAI, to: llmtest.Gemini,
			first: llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{
				{ID: "call_abc123", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			}},
			want: `{"role":"model","parts":[{"text":"Adding."},{"functionCall":{"id":"<call>","name":"calculate_sum","args":{"a":1,"b":2}}}]}`,
		},
	} {
		t.Run(string(tt.from)+" to "+string(tt.to), func(t *testing.T) {
			t.Parallel()
			first := newRig(t, tt.from, tt.first, llmtest.Reply{Text: "3."})
			if _, err := first.session(llm.SessionOptions{}).Send(context.Background(), "add"); err != nil {
				t.Fatal(err)
			}
			recs := first.records(t)
			var callID string
			for _, rec := range recs {
				if rec.Type == message.TypeToolCall {
					callID = rec.CallID
				}
			}

			next := newRig(t, tt.to, llmtest.Reply{Text: "Still 3."})
			s := next.session(llm.SessionOptions{})
			if err := s.Resume(context.Background(), recs); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Send(context.Background(), "sure?"); err != nil {
				t.Fatal(err)
			}
			key := "contents"
			if tt.to != llmtest.Gemini {
				key = "messages"
			}
			// add, the model's turn, the results, "3.", "sure?"
			msgs := next.srv.Bodies()[0][key].([]any)
			if len(msgs) != 5 {
				t.Fatalf("%d messages sent, want 5: %v", len(msgs), msgs)
			}
			turn := msgs[1]
			var want any
			if err := json.Unmarshal([]byte(strings.ReplaceAll(tt.want, "<call>", callID)), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, turn); diff != "" {
				t.Errorf("the model's turn mismatch (-want +got):\n%s", diff)
			}
			checkResultsSent(t, tt.to, map[string]any{key: msgs[:3]}, []sentResult{{callID, "3", false}})
		})
	}
}

// TestSessionUsage: every assistant record carries usage — a turn's cost
// on its first record, zero on the others — so that the transcript sums
// to what the Tally counted.
func TestSessionUsage(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p,
			llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{
				{ID: "c1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "c2", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
			}, Usage: &message.Usage{InputTokens: 1000, OutputTokens: 40, CacheReadTokens: 600}},
			llmtest.Reply{Text: "3 and 7.", Usage: &message.Usage{InputTokens: 1100, OutputTokens: 5, CacheReadTokens: 900}},
		)
		tally := &llm.Tally{}
		s := r.session(llm.SessionOptions{Tally: tally})
		if _, err := s.Send(context.Background(), "add"); err != nil {
			t.Fatal(err)
		}
		var got []message.Usage
		var sum message.Usage
		for _, rec := range r.records(t) {
			if rec.Role != message.RoleAssistant {
				if rec.Usage != nil {
					t.Errorf("%s %s record with usage", rec.Role, rec.Type)
				}
				continue
			}
			if rec.Usage == nil {
				t.Fatalf("assistant %s record without usage", rec.Type)
			}
			got = append(got, *rec.Usage)
			sum.Add(*rec.Usage)
		}
		want := []message.Usage{{InputTokens: 1000, OutputTokens: 40, CacheReadTokens: 600}, {}, {}, {InputTokens: 1100, OutputTokens: 5, CacheReadTokens: 900}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage of the assistant records (-want +got):\n%s", diff)
		}
		total, n := tally.Total()
		if total != sum || n != 2 {
			t.Errorf("tally %+v in %d requests, want %+v in 2: the transcript's sum", total, n, sum)
		}
	})
}
