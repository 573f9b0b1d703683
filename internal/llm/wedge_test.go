package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// No answer of a model, however odd, wedges a
// session. The fakes refuse what the real APIs refuse, so a history that
// would wedge a real session fails these tests.

// checkAccepted fails the test when the fake refused any request as the
// real API would have.
func checkAccepted(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Refusal != "" {
			t.Errorf("request %d was refused as the real API would: %s", i+1, r.Refusal)
		}
	}
}

func TestSessionHistoryStaysValid(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p,
			// Whitespace before the calls, and two calls under one id
			// that breaks Claude's pattern.
			llmtest.Reply{Text: "\n\n", Calls: []llmtest.Call{
				{ID: "call.1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "call.1", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
			}},
			llmtest.Reply{Text: " \n "},
			llmtest.Reply{Text: "3 and 7."},
		)
		s := r.session(llm.SessionOptions{})
		_, err := s.Send(context.Background(), "  add twice\n")
		if err == nil || !strings.Contains(err.Error(), "the model gave no answer") {
			t.Fatalf("error = %v, want no answer (whitespace only)", err)
		}
		answer, err := s.Send(context.Background(), "and now?")
		if err != nil || answer != "3 and 7." {
			t.Fatalf("answer %q, error %v", answer, err)
		}
		checkAccepted(t, r.srv)
		recs := r.records(t)
		type idShape struct{ Type, CallID, ModelCallID, Content string }
		var got []idShape
		for _, rec := range recs {
			got = append(got, idShape{string(rec.Type), rec.CallID, rec.ModelCallID, string(rec.Content)})
		}
		want := []idShape{
			{"text", "", "", `"add twice"`},
			{"tool_call", "call_1", "call.1", `{"a":1,"b":2}`},
			{"tool_call", "call_1_2", "call.1", `{"a":3,"b":4}`},
			{"tool_result", "call_1", "", "3"},
			{"tool_result", "call_1_2", "", "7"},
			{"text", "", "", `"and now?"`},
			{"text", "", "", `"3 and 7."`},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("transcript mismatch (-want +got):\n%s", diff)
		}
		checkResultsSent(t, p, r.srv.Bodies()[1], []sentResult{{"call_1", "3", false}, {"call_1_2", "7", false}})

		// The transcript goes on, resumed, as it is.
		r.srv.Add(llmtest.Reply{Text: "Yes."})
		resumed := r.session(llm.SessionOptions{})
		if err := resumed.Resume(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		if _, err := resumed.Send(context.Background(), "sure?"); err != nil {
			t.Fatal(err)
		}
		checkAccepted(t, r.srv)
	})
}

// TestResumeRepairsAnOldTranscript: a transcript written before kesoku
// kept its history valid — whitespace text and prompts, duplicate ids,
// ids out of Claude's pattern — resumes into a history the provider
// accepts.
func TestResumeRepairsAnOldTranscript(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		r := newRig(t, p, llmtest.Reply{Text: "Resumed."})
		rec := func(id, parent string, role message.Role, typ message.Type, callID, content string) *message.Record {
			return &message.Record{ID: id, SessionID: "old", ParentID: parent, Role: role, Type: typ,
				Status: message.StatusResponded, Name: "calculate_sum", CallID: callID, Content: json.RawMessage(content)}
		}
		old := []*message.Record{
			rec("u0", "", message.RoleUser, message.TypeText, "", `"   "`),
			rec("u1", "u0", message.RoleUser, message.TypeText, "", `"add"`),
			rec("a1", "u1", message.RoleAssistant, message.TypeText, "", `"\n\n"`),
			rec("c1", "a1", message.RoleAssistant, message.TypeToolCall, "call.1", `{"a":1,"b":2}`),
			rec("c2", "a1", message.RoleAssistant, message.TypeToolCall, "call.1", `{"a":3,"b":4}`),
			rec("r1", "c1", message.RoleTool, message.TypeToolResult, "call.1", `3`),
			rec("r2", "c2", message.RoleTool, message.TypeToolResult, "call.1", `7`),
			rec("a2", "r2", message.RoleAssistant, message.TypeText, "", `" "`),
		}
		s := r.session(llm.SessionOptions{})
		if err := s.Resume(context.Background(), old); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Send(context.Background(), "go on"); err != nil {
			t.Fatal(err)
		}
		checkAccepted(t, r.srv)
	})
}

// TestSessionCutTurnRunsNoCall: a turn cut at the output token limit
// holds a call whose arguments may be cut too; it never runs, the model
// is told why, and tries again.
func TestSessionCutTurnRunsNoCall(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		stop := map[llmtest.Provider]string{llmtest.Gemini: "MAX_TOKENS", llmtest.Claude: "max_tokens", llmtest.OpenAI: "length"}[p]
		r := newRig(t, p,
			llmtest.Reply{Text: "Writing.", StopReason: stop, Calls: []llmtest.Call{
				{ID: "w1", Name: "write_it", Args: map[string]any{"text": "the first half of"}},
			}},
			llmtest.Reply{Text: "I will write less at once."},
		)
		var ran atomic.Int32
		r.reg.MustRegister(&toolset.Tool{
			Name: "write_it", Description: "Write.", Source: "test",
			Params: []*toolspec.Property{{Name: "text", Schema: &toolspec.Schema{Type: toolspec.TypeString}, Required: true}},
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				ran.Add(1)
				return "written", nil
			},
		})
		var notices []string
		s := r.session(llm.SessionOptions{OnNotice: func(msg string) { notices = append(notices, msg) }})
		answer, err := s.Send(context.Background(), "write")
		if err != nil || answer != "I will write less at once." {
			t.Fatalf("answer %q, error %v", answer, err)
		}
		if n := ran.Load(); n != 0 {
			t.Errorf("the call of a cut turn ran %d times", n)
		}
		if len(notices) != 1 || !strings.Contains(notices[0], stop) || !strings.Contains(notices[0], "1 tool call was not run") {
			t.Errorf("notices %q, want one naming %s", notices, stop)
		}
		recs := r.records(t)
		if c := recs[2]; c.Type != message.TypeToolCall || c.Cut != stop || recs[1].Cut != stop {
			t.Errorf("the cut turn's records %+v %+v, want cut %q", recs[1], c, stop)
		}
		res := recs[3]
		if res.Type != message.TypeToolResult || res.Error == nil || res.Error.Kind != message.KindInvalidRequest ||
			!strings.Contains(res.Error.Message, "cut short ("+stop+")") || res.ParentID != recs[2].ID {
			t.Errorf("result %+v, want an error saying the turn was cut", res)
		}
		checkResultsSent(t, p, r.srv.Bodies()[1], []sentResult{{"w1", "invalid_request: " + res.Error.Message, true}})
		checkAccepted(t, r.srv)
	})
}

// TestSessionCutAnswer: an answer the provider cut short is no answer:
// Send returns the partial text with a CutError naming the reason, and
// the transcript says the text was cut.
func TestSessionCutAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider llmtest.Provider
		reply    llmtest.Reply
		reason   string
		says     string
	}{
		{llmtest.Claude, llmtest.Reply{Text: "Half an", StopReason: "max_tokens"}, "max_tokens", "output token limit"},
		{llmtest.Claude, llmtest.Reply{Text: "I can't", StopReason: "refusal"}, "refusal", "refused"},
		{llmtest.Claude, llmtest.Reply{Text: "So", StopReason: "model_context_window_exceeded"}, "model_context_window_exceeded", "context window"},
		{llmtest.Gemini, llmtest.Reply{Text: "Half an", StopReason: "MAX_TOKENS"}, "MAX_TOKENS", "output token limit"},
		{llmtest.Gemini, llmtest.Reply{Text: "Well", StopReason: "SAFETY"}, "SAFETY", "safety"},
		{llmtest.Gemini, llmtest.Reply{Text: "To be or", StopReason: "RECITATION"}, "RECITATION", "reciting"},
		{llmtest.Gemini, llmtest.Reply{Text: "And then", NoFinish: true}, llm.CutNoStopReason, "without the provider saying why"},
		{llmtest.OpenAI, llmtest.Reply{Text: "Half an", StopReason: "length"}, "length", "output token limit"},
		{llmtest.OpenAI, llmtest.Reply{Text: "Well", StopReason: "content_filter"}, "content_filter", "safety"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := string(tt.provider) + " " + tt.reason
			if stream {
				name += " streamed"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := newRig(t, tt.provider, tt.reply)
				opts := llm.SessionOptions{}
				if stream {
					opts.OnText = func(string) {}
				}
				answer, err := r.session(opts).Send(context.Background(), "tell me")
				var cut *llm.CutError
				if !errors.As(err, &cut) || cut.Reason != tt.reason || !strings.Contains(err.Error(), tt.says) {
					t.Fatalf("error %v, want a cut naming %s", err, tt.reason)
				}
				if answer != tt.reply.Text || cut.Answer != tt.reply.Text {
					t.Errorf("answer %q (error's %q), want the partial %q", answer, cut.Answer, tt.reply.Text)
				}
				recs := r.records(t)
				if last := recs[len(recs)-1]; last.Role != message.RoleAssistant || last.Cut != tt.reason {
					t.Errorf("last record %+v, want the text marked cut", last)
				}
			})
		}
	}
}

// TestSessionPauseTurnIsContinued: Claude's pause_turn is no answer; the
// conversation is sent again as it is, and the answer is the whole turn.
func TestSessionPauseTurnIsContinued(t *testing.T) {
	t.Parallel()
	r := newRig(t, llmtest.Claude,
		llmtest.Reply{Text: "Searching.", StopReason: "pause_turn"},
		llmtest.Reply{Text: " Found it."},
	)
	answer, err := r.session(llm.SessionOptions{}).Send(context.Background(), "search")
	if err != nil || answer != "Searching. Found it." {
		t.Fatalf("answer %q, error %v", answer, err)
	}
	if n := len(r.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	checkAccepted(t, r.srv)
	msgs := r.srv.Bodies()[1]["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "assistant" {
		t.Errorf("the continued request ends with %v, want the paused turn", last)
	}
}

// TestGeminiThoughtsStayWithGemini: a Gemini thought summary, resumed
// into a Claude session, is not sent to Claude as the model's words.
func TestGeminiThoughtsStayWithGemini(t *testing.T) {
	t.Parallel()
	first := newRig(t, llmtest.Gemini, llmtest.Reply{Thought: "The user wants a sum; 1+2.", Text: "3."})
	if _, err := first.session(llm.SessionOptions{}).Send(context.Background(), "1+2?"); err != nil {
		t.Fatal(err)
	}
	recs := first.records(t)
	next := newRig(t, llmtest.Claude, llmtest.Reply{Text: "Still 3."})
	s := next.session(llm.SessionOptions{})
	if err := s.Resume(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), "sure?"); err != nil {
		t.Fatal(err)
	}
	checkAccepted(t, next.srv)
	body := string(next.srv.Requests()[0].Body)
	if strings.Contains(body, "The user wants a sum") {
		t.Errorf("the thought went to Claude as text: %s", body)
	}
	if !strings.Contains(body, `"3."`) {
		t.Errorf("the answer did not go to Claude: %s", body)
	}
	// Resumed with Gemini, the thought goes back as a thought.
	again := newRig(t, llmtest.Gemini, llmtest.Reply{Text: "Yes."})
	g := again.session(llm.SessionOptions{})
	if err := g.Resume(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Send(context.Background(), "sure?"); err != nil {
		t.Fatal(err)
	}
	if body := string(again.srv.Requests()[0].Body); !strings.Contains(body, `"text":"The user wants a sum; 1+2.","thought":true`) {
		t.Errorf("the thought did not go back to Gemini as one: %s", body)
	}
}

// appendWatch is a Store that tells of every record appended.
type appendWatch struct {
	message.Store
	appended chan *message.Record
}

func (w appendWatch) Append(ctx context.Context, recs ...*message.Record) error {
	for _, rec := range recs {
		w.appended <- rec
	}
	return w.Store.Append(ctx, recs...)
}

// TestResultsAreWrittenAsCallsReturn: a call's result is in the
// transcript as soon as it returns, while another call of its turn still
// runs, so that a kill then loses only what had not returned.
func TestResultsAreWrittenAsCallsReturn(t *testing.T) {
	t.Parallel()
	r := newRig(t, llmtest.Claude,
		llmtest.Reply{Calls: []llmtest.Call{
			{ID: "slow", Name: "wait_release"},
			{ID: "fast", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
		}},
		llmtest.Reply{Text: "Both done."},
	)
	release := make(chan struct{})
	r.reg.MustRegister(&toolset.Tool{
		Name: "wait_release", Description: "Wait.", Source: "test",
		Call: func(ctx context.Context, _ *registry.ToolContext, _ map[string]any) (any, error) {
			// The timer only ends a test that fails: without it, a runner
			// that waits for this call before writing the other's result
			// would wait for ever.
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
			return "released", nil
		},
	})
	w := appendWatch{Store: r.w, appended: make(chan *message.Record, 64)}
	s := llm.NewSession(llm.SessionOptions{
		Provider: r.provider, Store: w, Tools: r.reg.All(),
		Runner: runner.New(r.reg, runner.Options{Jobs: 2, Grace: time.Second}),
	})
	done := make(chan error, 1)
	go func() {
		_, err := s.Send(context.Background(), "go")
		done <- err
	}()
	var first *message.Record
	for first == nil {
		if rec := <-w.appended; rec.Type == message.TypeToolResult {
			first = rec
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if first.CallID != "fast" || string(first.Content) != "3" {
		t.Errorf("the first result written is %+v, want fast's while slow still ran", first)
	}
	checkAccepted(t, r.srv)
	checkResultsSent(t, llmtest.Claude, r.srv.Bodies()[1], []sentResult{{"slow", "released", false}, {"fast", "3", false}})
}

// TestArgumentsThatAreNoObject: streamed tool arguments that do not parse
// as one JSON object are kept as sent in the transcript, the call does
// not run, and the model is told its JSON was invalid.
func TestArgumentsThatAreNoObject(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`{"a":2}{"b":3}`, `{"a": 1, "b`, `[1, 2]`} {
		t.Run(raw, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, llmtest.Claude,
				llmtest.Reply{Calls: []llmtest.Call{{ID: "bad", Name: "calculate_sum", RawArgs: raw}}},
				llmtest.Reply{Text: "Sorry."},
			)
			s := r.session(llm.SessionOptions{OnText: func(string) {}})
			if _, err := s.Send(context.Background(), "add"); err != nil {
				t.Fatal(err)
			}
			recs := r.records(t)
			call, res := recs[1], recs[2]
			var kept string
			if err := json.Unmarshal(call.Content, &kept); err != nil || kept != raw {
				t.Errorf("tool_call content %s, want the text sent %q", call.Content, raw)
			}
			if res.Error == nil || res.Error.Kind != message.KindInvalidArgs || !strings.Contains(res.Error.Message, "could not be read") ||
				strings.Contains(res.Error.Message, "missing") {
				t.Errorf("result %+v, want invalid_args saying the arguments could not be read", res.Error)
			}
			checkAccepted(t, r.srv)
			// Resumed, the transcript still makes a valid history.
			r.srv.Add(llmtest.Reply{Text: "Again."})
			again := r.session(llm.SessionOptions{})
			if err := again.Resume(context.Background(), recs); err != nil {
				t.Fatal(err)
			}
			if _, err := again.Send(context.Background(), "once more"); err != nil {
				t.Fatal(err)
			}
			checkAccepted(t, r.srv)
		})
	}
}

// TestTurnResultsFitTheRequest: a turn whose results together are more
// than the provider takes in one request has its largest results cut,
// each saying so, so that the session goes on, and goes on resumed.
func TestTurnResultsFitTheRequest(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, p llmtest.Provider) {
		const limit = 100_000
		var calls []llmtest.Call
		for i := range 12 {
			calls = append(calls, llmtest.Call{ID: fmt.Sprintf("r%d", i), Name: "big", Args: map[string]any{"n": 20_000}})
		}
		calls = append(calls, llmtest.Call{ID: "small", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}})
		r := newRigWith(t, p, llm.ClientOptions{MaxRequest: limit},
			llmtest.Reply{Calls: calls},
			llmtest.Reply{Text: "Read it all."},
		)
		r.srv.SetRequestLimit(limit)
		type bigArgs struct {
			N int `json:"n"`
		}
		g := registry.New()
		err := registry.Add(g, "big", "Return n bytes.", func(_ context.Context, _ *registry.ToolContext, in bigArgs) (string, error) {
			return strings.Repeat("x", in.N-4) + "tail", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		big, _ := g.Lookup("big")
		r.reg.MustRegister(toolset.FromSpec(big))
		s := r.session(llm.SessionOptions{})
		if answer, err := s.Send(context.Background(), "read"); err != nil || answer != "Read it all." {
			t.Fatalf("answer %q, error %v", answer, err)
		}
		checkAccepted(t, r.srv)
		body := string(r.srv.Requests()[1].Body)
		if n := len(body); n > limit {
			t.Errorf("the request is %d bytes, over the %d limit", n, limit)
		}
		if got := strings.Count(body, "kesoku cut"); got != 12 {
			t.Errorf("%d results say they were cut, want the 12 large ones", got)
		}
		if !strings.Contains(body, "tail") {
			t.Errorf("the results lost their tails")
		}
		// The transcript keeps what the tools returned; resumed, the same
		// cut is made, and the request fits again.
		recs := r.records(t)
		if n := len(recs[15].Content); n < 20_000 {
			t.Errorf("the transcript holds %d bytes of a 20000-byte result", n)
		}
		r.srv.Add(llmtest.Reply{Text: "Still."})
		again := r.session(llm.SessionOptions{})
		if err := again.Resume(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		if _, err := again.Send(context.Background(), "and?"); err != nil {
			t.Fatal(err)
		}
		checkAccepted(t, r.srv)
	})
}
