package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// fileResults is a Gemini batch sent as a file, whose results come as a
// file too; Claude's come as JSON Lines always.
func fileResults(b llm.Batcher) llm.Batcher {
	limits := b.BatchLimits()
	if limits.MaxInline == 0 {
		return b
	}
	limits.MaxInline = 100
	return &smallBatches{Batcher: b, limits: limits}
}

// TestResultsAreStreamed: a batch's results are read a line at a time as
// they come, never whole: more of them than any answer may be is
// collected, and they keep to their own bounds, in all and a line.
func TestResultsAreStreamed(t *testing.T) {
	text := strings.Repeat("A long description. ", 150) // 3000 bytes
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini} {
		for _, tt := range []struct {
			name string
			opts llm.ClientOptions
			// want is the error, "" for none.
			want string
		}{
			{"results larger than an answer", llm.ClientOptions{MaxResponse: 4 << 10}, ""},
			{"results too large", llm.ClientOptions{MaxResponse: 4 << 10, MaxResults: 8 << 10}, "the body of the results is larger than 8192 bytes"},
			{"a line too large", llm.ClientOptions{MaxResponse: 4 << 10, MaxEvent: 1 << 10}, "a line of the results is larger than 1024 bytes"},
		} {
			t.Run(string(p)+" "+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(p, "", llmtest.Reply{Text: text}, llmtest.Reply{Text: text}, llmtest.Reply{Text: text}, llmtest.Reply{Text: text})
				defer srv.Close()
				dir, file := imageWorkspace(t, 4, noIDs)
				res, err := Submit(context.Background(), submitOptions(srv, fileResults(connect(t, srv)), dir, file))
				if err != nil {
					t.Fatal(err)
				}
				b := connect(t, srv, func(o *llm.ClientOptions) {
					o.MaxResponse, o.MaxResults, o.MaxEvent = tt.opts.MaxResponse, tt.opts.MaxResults, tt.opts.MaxEvent
				})
				var out recorded
				_, err = collect(t, context.Background(), b, res.Path, &out)
				if tt.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					if len(out.recs) != 4 {
						t.Fatalf("%d records, want 4", len(out.recs))
					}
					for i, r := range out.recs {
						if r.ParentID != fmt.Sprintf("call_%d", i+1) || !strings.Contains(string(r.Content), "A long description.") {
							t.Errorf("record %d: %s %s", i+1, r.ParentID, r.Content)
						}
					}
					return
				}
				var tl *llm.TooLargeError
				if !errors.As(err, &tl) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("collect: %v, want %q", err, tt.want)
				}
				if len(out.recs) != 0 {
					t.Errorf("%d records written", len(out.recs))
				}
			})
		}
	}
}

// statusElsewhere asks where a batch stands through one client and
// reads its results through another.
type statusElsewhere struct {
	llm.Batcher
	results llm.Batcher
}

func (s statusElsewhere) BatchResults(ctx context.Context, b *llm.Batch, fn func(string, *llm.Response, error) error) error {
	return s.results.BatchResults(ctx, b, fn)
}

// TestResultsDeadline: results that trickle a byte at a time for ever
// are never idle: the deadline ends their download, with an error that
// says so, and no record is written. The deadline is that of the client
// that reads the results; the trickle never ends, so nothing but the
// deadline can end it.
func TestResultsDeadline(t *testing.T) {
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(p, "", replies(2)...)
			defer srv.Close()
			dir, file := imageWorkspace(t, 2, noIDs)
			b := fileResults(connect(t, srv))
			res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			srv.SetResultsTrickle(time.Millisecond)
			deadline := time.Second
			short := connect(t, srv, func(o *llm.ClientOptions) { o.Deadline = deadline })
			var out recorded
			_, err = collect(t, context.Background(), statusElsewhere{Batcher: b, results: short}, res.Path, &out)
			var late *llm.DeadlineError
			want := fmt.Sprintf("%s: the API did not finish answering within %v", p, deadline)
			if !errors.As(err, &late) || !strings.Contains(err.Error(), want) {
				t.Fatalf("collect: %v, want %q", err, want)
			}
			if len(out.recs) != 0 {
				t.Errorf("%d records written", len(out.recs))
			}
		})
	}
}
