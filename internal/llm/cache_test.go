package llm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// uncached asks as its provider does, but never marks a request for
// caching: the session as it would be without prompt caching.
type uncached struct{ llm.Provider }

func (u uncached) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	r := *req
	r.Cacheable = false
	return u.Provider.Generate(ctx, &r, onText)
}

// billed is what input tokens cost in tokens at the full price: Claude
// charges a tenth for a token read from the cache, and a quarter more
// for one written to it (platform.claude.com, prompt caching pricing).
func billed(u message.Usage) float64 {
	fresh := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	return float64(fresh) + 0.1*float64(u.CacheReadTokens) + 1.25*float64(u.CacheWriteTokens)
}

// TestPromptCachingSavesInput: a ten-turn session with Claude, with and
// without cache breakpoints, against the fake that caches as the real
// API does. The usage totals show what caching saves; the figures are
// in the README.
func TestPromptCachingSavesInput(t *testing.T) {
	t.Parallel()
	const turns = 10
	run := func(t *testing.T, cached bool) message.Usage {
		var replies []llmtest.Reply
		for i := range turns {
			replies = append(replies, llmtest.Reply{Text: fmt.Sprintf("Looking up part %d.", i+1),
				Calls: []llmtest.Call{{Name: "lookup", Args: map[string]any{"part": i + 1}}}})
		}
		replies = append(replies, llmtest.Reply{Text: "All ten parts are in order."})
		r := newRig(t, llmtest.Claude, replies...)
		// A tool whose results are pages of text, as read_file's are.
		type lookupArgs struct {
			Part int `json:"part"`
		}
		g := registry.New()
		err := registry.Add(g, "lookup", "Look a part up.", func(_ context.Context, _ *registry.ToolContext, in lookupArgs) (string, error) {
			return strings.Repeat(fmt.Sprintf("part %d is in order. ", in.Part), 100), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		lookup, _ := g.Lookup("lookup")
		r.reg.MustRegister(toolset.FromSpec(lookup))
		if !cached {
			r.provider = uncached{r.provider}
		}
		tally := &llm.Tally{}
		// A system prompt of about 1500 tokens: the house rules of an agent.
		system := strings.Repeat("Check every part, report what you find, and keep to the facts. ", 100)
		s := r.session(llm.SessionOptions{Tally: tally, System: system, MaxTurns: turns + 1})
		if _, err := s.Send(context.Background(), "check the ten parts"); err != nil {
			t.Fatal(err)
		}
		total, n := tally.Total()
		if n != turns+1 {
			t.Fatalf("%d requests, want %d", n, turns+1)
		}
		return total
	}
	with, without := run(t, true), run(t, false)
	t.Logf("without caching: %+v, billed as %.0f input tokens", without, billed(without))
	t.Logf("with caching:    %+v, billed as %.0f input tokens", with, billed(with))
	if with.InputTokens != without.InputTokens || with.OutputTokens != without.OutputTokens {
		t.Errorf("the two sessions sent %d and %d input tokens: the same requests should", with.InputTokens, without.InputTokens)
	}
	if without.CacheReadTokens != 0 || without.CacheWriteTokens != 0 {
		t.Errorf("without breakpoints the cache was used: %+v", without)
	}
	if with.CacheReadTokens < with.InputTokens*3/4 {
		t.Errorf("with breakpoints only %d of %d input tokens were read from the cache", with.CacheReadTokens, with.InputTokens)
	}
	if b, w := billed(with), billed(without); b > w/3 {
		t.Errorf("caching billed %.0f input tokens against %.0f without: want at most a third", b, w)
	}
}
