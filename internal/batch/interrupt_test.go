package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/message"
)

// hooked is a provider's batch API with a hook at every step kesoku
// takes through it, where a test interrupts; and limits of its own,
// smaller than the provider's, so that a few requests make several parts.
type hooked struct {
	llm.Batcher
	limits llm.BatchLimits

	mu     sync.Mutex
	cmd    string
	counts map[string]int
	// hook runs at the n-th step of the command cmd (counted from the
	// command's start), before it is taken, or, for "created", after.
	hook func(ctx context.Context, cmd, step string, n int)
}

// begin starts counting the steps of the command cmd.
func (h *hooked) begin(cmd string) {
	h.mu.Lock()
	h.cmd, h.counts = cmd, map[string]int{}
	h.mu.Unlock()
}

func (h *hooked) at(ctx context.Context, step string) {
	h.mu.Lock()
	h.counts[step]++
	cmd, n, hook := h.cmd, h.counts[step], h.hook
	h.mu.Unlock()
	if hook != nil {
		hook(ctx, cmd, step, n)
	}
}

func (h *hooked) BatchLimits() llm.BatchLimits { return h.limits }

func (h *hooked) BatchEntry(key string, req *llm.Request) ([]byte, error) {
	h.at(context.Background(), "entry")
	return h.Batcher.BatchEntry(key, req)
}

func (h *hooked) Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error) {
	h.at(ctx, "upload")
	return h.Batcher.(media.Uploader).Upload(ctx, r, mimeType, name)
}

func (h *hooked) SubmitBatch(ctx context.Context, in llm.BatchInput) (*llm.Batch, error) {
	h.at(ctx, "create")
	b, err := h.Batcher.SubmitBatch(ctx, in)
	if err == nil {
		h.at(ctx, "created")
	}
	return b, err
}

func (h *hooked) Batch(ctx context.Context, id string) (*llm.Batch, error) {
	h.at(ctx, "get")
	return h.Batcher.Batch(ctx, id)
}

func (h *hooked) BatchResults(ctx context.Context, b *llm.Batch, fn func(string, *llm.Response, error) error) error {
	return h.Batcher.BatchResults(ctx, b, func(key string, resp *llm.Response, err error) error {
		h.at(ctx, "result")
		return fn(key, resp, err)
	})
}

func (h *hooked) DeleteFile(ctx context.Context, name string) error {
	h.at(ctx, "delete")
	return h.Batcher.DeleteFile(ctx, name)
}

// TestInterruptAtEveryStep interrupts submit, status and collect at each
// step they take through the provider, for Claude, for Gemini's inline
// requests and for Gemini's requests sent as a JSON Lines file through
// its Files API (with the images uploaded too); then runs the same
// three commands again. Every request is sent once, in parts of 3, and
// has one record, in order; nothing kesoku uploaded is left.
func TestInterruptAtEveryStep(t *testing.T) {
	t.Parallel()
	paths := []struct {
		name     string
		provider llmtest.Provider
		limits   llm.BatchLimits
	}{
		{"claude", llmtest.Claude, llm.BatchLimits{MaxRequests: 3}},
		{"gemini inline", llmtest.Gemini, llm.BatchLimits{MaxRequests: 3, MaxInline: 1 << 20}},
		{"gemini file", llmtest.Gemini, llm.BatchLimits{MaxRequests: 3, MaxInline: 1}},
	}
	steps := []struct {
		cmd, step string
		// n is which of the command's steps of that name is
		// interrupted: 0 interrupts the command before it starts.
		n int
		// abandon is a second interrupt: the part being sent is
		// abandoned before it reaches the provider.
		abandon bool
		// uploads: only where images are uploaded (Gemini).
		uploads bool
	}{
		{cmd: "submit", step: "start"},
		{cmd: "submit", step: "upload", n: 5, uploads: true}, // part 2's second image
		{cmd: "submit", step: "entry", n: 5},                 // before part 2 is created
		{cmd: "submit", step: "create", n: 2},                // while part 2 is created
		{cmd: "submit", step: "create", n: 2, abandon: true}, // part 2 abandoned
		{cmd: "submit", step: "created", n: 1},               // after part 1 is created
		{cmd: "submit", step: "created", n: 2},               // after part 2 is created
		{cmd: "status", step: "start"},
		{cmd: "status", step: "get", n: 2},
		{cmd: "collect", step: "start"},
		{cmd: "collect", step: "get", n: 2},                   // waiting for part 1
		{cmd: "collect", step: "result", n: 5},                // reading part 2's results
		{cmd: "collect", step: "emit", n: 1},                  // after record 1
		{cmd: "collect", step: "emit", n: 4},                  // within part 2
		{cmd: "collect", step: "emit", n: 7},                  // before the files are deleted
		{cmd: "collect", step: "delete", n: 2, uploads: true}, // while they are
	}
	for _, path := range paths {
		for _, step := range steps {
			if step.uploads && path.provider != llmtest.Gemini {
				continue
			}
			name := fmt.Sprintf("%s/%s %s %d", path.name, step.cmd, step.step, step.n)
			if step.abandon {
				name += " abandoned"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(path.provider, "", replies(7)...)
				defer srv.Close()
				// Each part is in progress at the first look.
				srv.SetBatchPolls(1)
				h := &hooked{Batcher: connect(t, srv), limits: path.limits}
				dir, file := imageWorkspace(t, 7, noIDs)
				opts := submitOptions(srv, h, dir, file)
				opts.Media = media.Options{InlineLimit: 100} // the images are uploaded where they can be
				var abandon chan struct{}

				var cancel context.CancelFunc
				interrupted := false
				h.hook = func(ctx context.Context, cmd, s string, n int) {
					if interrupted || cmd != step.cmd || s != step.step || n != step.n {
						return
					}
					interrupted = true
					cancel()
					if step.abandon {
						close(abandon)
						<-ctx.Done() // the send's own context, once abandoned
					}
				}
				var out recorded
				var statePath string
				// do runs the command cmd; it reports whether it ran
				// to its end.
				do := func(cmd string) bool {
					var ctx context.Context
					ctx, cancel = context.WithCancel(context.Background())
					defer cancel()
					h.begin(cmd)
					abandon = make(chan struct{})
					opts.Abandon = abandon
					before := interrupted
					if !interrupted && cmd == step.cmd && step.step == "start" {
						interrupted = true
						cancel()
					}
					var err error
					switch cmd {
					case "submit":
						var res *SubmitResult
						res, err = Submit(ctx, opts)
						if res != nil {
							statePath = res.Path
						}
					case "status":
						var st *State
						if st, err = Load(statePath); err != nil {
							t.Fatal(err)
						}
						var parts []PartStatus
						if parts, err = Status(ctx, st, h); err == nil && len(parts) != 3 {
							t.Errorf("status of %d parts, want 3", len(parts))
						}
					case "collect":
						_, err = collect(t, ctx, h, statePath, &out, func(o *CollectOptions) {
							o.Wait, o.Poll = true, time.Millisecond
							emit := o.Emit
							o.Emit = func(r *message.Record) error {
								if err := emit(r); err != nil {
									return err
								}
								h.at(ctx, "emit")
								return nil
							}
						})
					}
					switch {
					case interrupted && !before:
						// Interrupted now: it must stop, and say so.
						if err == nil {
							t.Fatalf("%s went on to its end after the interrupt", cmd)
						}
						if !step.abandon && !errors.Is(err, context.Canceled) {
							t.Fatalf("%s interrupted: %v, want it cancelled", cmd, err)
						}
						return false
					case err != nil:
						t.Fatalf("%s: %v", cmd, err)
					}
					return true
				}

				// The commands until the interrupt; the state they leave.
				for _, cmd := range []string{"submit", "status", "collect"} {
					var state []byte
					if statePath != "" {
						state, _ = os.ReadFile(statePath)
					}
					if !do(cmd) {
						if cmd == "status" {
							if now, _ := os.ReadFile(statePath); !bytes.Equal(now, state) {
								t.Errorf("an interrupted status changed the state file:\n%s\nthen\n%s", state, now)
							}
						}
						break
					}
				}
				if !interrupted {
					t.Fatal("the step was never taken: the test interrupts nothing")
				}
				if path.provider == llmtest.Gemini && step.cmd == "submit" {
					// Uploaded for a part not sent: deleted at once; or,
					// for a part abandoned (which the provider may have
					// taken, citing them), by the next submit.
					known := map[string]bool{}
					if st, err := Load(statePath); err == nil {
						for _, p := range st.Parts {
							for _, f := range p.Files {
								known[f] = true
							}
						}
						for _, f := range st.Uploads {
							known[f] = step.abandon
						}
					}
					for _, u := range srv.Uploads() {
						if !u.Deleted && !known[u.URI] && !known[u.Name] {
							t.Errorf("%s, uploaded for a part never sent, is left after the interrupt, and not in the state", u.Name)
						}
					}
				}

				// The same commands again finish the job.
				for _, cmd := range []string{"submit", "status", "collect"} {
					do(cmd)
				}
				var keys []string
				for _, b := range srv.Batches() {
					keys = append(keys, b.Keys...)
					if path.name == "gemini file" && b.Input == "" {
						t.Errorf("batch %s went inline; want a file", b.ID)
					}
					if path.name == "gemini inline" && b.Input != "" {
						t.Errorf("batch %s went as a file; want inline", b.ID)
					}
				}
				if want := []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7"}; !slices.Equal(keys, want) {
					t.Errorf("keys sent %v, want each once: %v", keys, want)
				}
				checkWhole(t, out.recs, 7)
				for _, u := range srv.Uploads() {
					if !u.Deleted && !strings.HasPrefix(u.Name, "files/batch-") {
						t.Errorf("%s is left after collection", u.Name)
					}
				}
				if st, err := Load(statePath); err != nil || !st.Cleaned {
					t.Errorf("state after collection: %+v, %v; want cleaned", st, err)
				}
			})
		}
	}
}
