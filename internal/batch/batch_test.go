package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
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
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

const (
	claudeModel = "claude-sonnet-4-5"
	geminiModel = "gemini-2.5-flash"
)

// connect builds the real provider client against the fake, as kesoku
// does: through the SDK, pointed at the fake's URL.
func connect(t *testing.T, srv *llmtest.Server, options ...func(*llm.ClientOptions)) llm.Batcher {
	t.Helper()
	opts := llm.ClientOptions{APIKey: "test-key", BaseURL: srv.URL, Retry: llm.Retry{MaxRetries: -1}, MaxResponse: 1 << 30}
	for _, o := range options {
		o(&opts)
	}
	switch srv.Provider() {
	case llmtest.Claude:
		opts.Model = claudeModel
		p, err := claude.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		return p
	default:
		// Uploaded files are ACTIVE at once: no wait for processing.
		srv.SetFileStates("", "ACTIVE")
		opts.Model = geminiModel
		p, err := gemini.New(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// pngImage is a small PNG whose pixels depend on seed, so that files
// differ.
func pngImage(t *testing.T, seed int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, 7-i, color.RGBA{uint8(seed), 128, 255, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageWorkspace is a directory of n images and a JSON Lines file of one
// analyze_media request for each; ids gives request i the id ids(i), ""
// for none.
func imageWorkspace(t *testing.T, n int, ids func(int) string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("img%d.png", i)
		if err := os.WriteFile(filepath.Join(dir, name), pngImage(t, i), 0o644); err != nil {
			t.Fatal(err)
		}
		req := map[string]any{"name": "analyze_media", "args": map[string]any{"path": name, "prompt": fmt.Sprintf("what is in %d?", i)}}
		if id := ids(i); id != "" {
			req["id"] = id
		}
		line, _ := json.Marshal(req)
		b.Write(append(line, '\n'))
	}
	file = filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

func noIDs(int) string { return "" }

func submitOptions(srv *llmtest.Server, b llm.Batcher, dir, file string) SubmitOptions {
	provider, model := "claude", claudeModel
	if srv.Provider() == llmtest.Gemini {
		provider, model = "gemini", geminiModel
	}
	return SubmitOptions{
		Registry: registry.Default, File: file, AWD: dir, Staging: filepath.Join(dir, ".kesoku", "staging"),
		Provider: provider, Model: model, Session: "s1",
		Connect: func(context.Context) (llm.Batcher, error) { return b, nil },
	}
}

// recorded collects what Collect emits.
type recorded struct{ recs []*message.Record }

func (r *recorded) emit(rec *message.Record) error {
	r.recs = append(r.recs, rec)
	return nil
}

// collect runs Collect over the state at path into out, skipping what out
// holds already, as kesoku batch collect does.
func collect(t *testing.T, ctx context.Context, b llm.Batcher, path string, out *recorded, opts ...func(*CollectOptions)) (CollectReport, error) {
	t.Helper()
	st, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	finished := records.NewFinished()
	for _, r := range out.recs {
		finished.Add(records.HeadOf(r))
	}
	o := CollectOptions{Registry: registry.Default, State: st, StatePath: path, Batcher: b, Finished: finished, Emit: out.emit}
	for _, f := range opts {
		f(&o)
	}
	return Collect(ctx, o)
}

// view is what a record says, without what differs from run to run.
type view struct {
	Parent, Session, Name, Content, Kind, Error, ArgsHash string
}

// noHashes leaves args_hash out, for records written out by hand.
func noHashes(v []view) []view {
	for i := range v {
		if v[i].ArgsHash == "" {
			v[i].Kind = "no args_hash"
		}
		v[i].ArgsHash = ""
	}
	return v
}

func views(recs []*message.Record) []view {
	var out []view
	for _, r := range recs {
		v := view{Parent: r.ParentID, Session: r.SessionID, Name: r.Name, Content: string(r.Content), ArgsHash: r.ArgsHash}
		if r.Error != nil {
			v.Kind, v.Error = string(r.Error.Kind), r.Error.Message
		}
		out = append(out, v)
	}
	return out
}

func TestClaudeBatch(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "",
		llmtest.Reply{Text: "One."},
		llmtest.Reply{Status: 400, Error: "the image is unreadable"},
		llmtest.Reply{BatchResult: "expired"},
		llmtest.Reply{Text: "Four, cut", StopReason: "max_tokens"},
		llmtest.Reply{BatchResult: "canceled"},
	)
	defer srv.Close()
	b := connect(t, srv)
	dir, file := imageWorkspace(t, 5, func(i int) string {
		if i == 2 {
			return "second id, any text"
		}
		return ""
	})
	ctx := context.Background()
	res, err := Submit(ctx, submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	if !res.State.Submitted || len(res.State.Parts) != 1 || res.Sent != 5 {
		t.Fatalf("state %+v, sent %d: want one part of 5 requests, submitted", res.State, res.Sent)
	}
	if want := StatePath(dir, res.State.ID); res.Path != want {
		t.Errorf("state at %s, want %s", res.Path, want)
	}
	batches := srv.Batches()
	if len(batches) != 1 {
		t.Fatalf("%d batches, want 1", len(batches))
	}
	if diff := cmp.Diff([]string{"r1", "r2", "r3", "r4", "r5"}, batches[0].Keys); diff != "" {
		t.Errorf("custom_ids (-want +got):\n%s", diff)
	}
	// The params are those of the Messages request analyze_media sends:
	// the image first, then the prompt.
	var params struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(batches[0].Requests[2], &params); err != nil {
		t.Fatal(err)
	}
	if params.Model != claudeModel || params.MaxTokens != claude.DefaultMaxTokens || len(params.Messages) != 1 || len(params.Messages[0].Content) != 2 ||
		params.Messages[0].Content[0]["type"] != "image" || params.Messages[0].Content[1]["text"] != "what is in 3?" {
		t.Errorf("request 3's params: %s", batches[0].Requests[2])
	}

	var out recorded
	sum, err := collect(t, ctx, b, res.Path, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := []view{
		{Parent: "call_1", Session: "s1", Name: "analyze_media", Content: `"One."`},
		{Parent: "second id, any text", Session: "s1", Name: "analyze_media", Kind: "tool_error",
			Error: "ask claude-sonnet-4-5 about img2.png: claude API error invalid_request_error: the image is unreadable"},
		{Parent: "call_3", Session: "s1", Name: "analyze_media", Kind: "tool_error",
			Error: "ask claude-sonnet-4-5 about img3.png: claude batch msgbatch_fake_1: the request expired: Claude did not reach it within the batch's 24 hours"},
		{Parent: "call_4", Session: "s1", Name: "analyze_media", Kind: "tool_error",
			Error: "ask claude-sonnet-4-5 about img4.png: the answer was cut short: it reached the output token limit (max_tokens); raise the limit"},
		{Parent: "call_5", Session: "s1", Name: "analyze_media", Kind: "tool_error",
			Error: "ask claude-sonnet-4-5 about img5.png: claude batch msgbatch_fake_1: the request was canceled: the batch was canceled before Claude processed it"},
	}
	if diff := cmp.Diff(want, noHashes(views(out.recs))); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if sum.Records != 5 || sum.Failed != 4 || sum.Kinds[message.KindToolError] != 4 {
		t.Errorf("summary %+v", sum)
	}

	// The same submit again sends nothing; collect again writes nothing.
	again, err := Submit(ctx, submitOptions(srv, b, dir, file))
	if err != nil || !again.Already || len(srv.Batches()) != 1 {
		t.Errorf("second submit: %+v, %v, %d batches; want nothing sent", again, err, len(srv.Batches()))
	}
	sum, err = collect(t, ctx, b, res.Path, &out)
	if err != nil || sum.Records != 0 || sum.Skipped != 5 || len(out.recs) != 5 {
		t.Errorf("second collect: %+v, %v: want every request skipped", sum, err)
	}
}

// TestCollectIsRun: a batch's records are those kesoku run --model
// writes for the same requests, but for what differs from run to run.
func TestCollectIsRun(t *testing.T) {
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini} {
		t.Run(string(p), func(t *testing.T) {
			replies := []llmtest.Reply{{Text: "A red line."}, {Status: 400, Error: "no good"}, {Text: "A blue line."}}
			dir, file := imageWorkspace(t, 3, func(i int) string { return map[int]string{2: "two"}[i] })

			batchSrv := llmtest.NewServer(p, "", replies...)
			defer batchSrv.Close()
			b := connect(t, batchSrv)
			res, err := Submit(context.Background(), submitOptions(batchSrv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var got recorded
			if _, err := collect(t, context.Background(), b, res.Path, &got); err != nil {
				t.Fatal(err)
			}

			runSrv := llmtest.NewServer(p, "", replies...)
			defer runSrv.Close()
			want := runRecords(t, connect(t, runSrv), dir, file)
			clean := func(recs []*message.Record) []view {
				v := views(recs)
				for i := range v {
					// A provider's error says its HTTP status when it came
					// as one; a batch's result has none to say.
					v[i].Error = strings.Replace(v[i].Error, "API error 400", "API error", 1)
					v[i].Error = strings.Replace(v[i].Error, " INVALID_ARGUMENT", "", 1)
				}
				return v
			}
			if diff := cmp.Diff(clean(want), clean(got.recs)); diff != "" {
				t.Errorf("records (-run +batch):\n%s", diff)
			}
			if len(got.recs) != 3 {
				t.Fatalf("%d records", len(got.recs))
			}
			for i := range got.recs {
				g, w := got.recs[i], want[i]
				if g.Role != w.Role || g.Type != w.Type || g.Status != w.Status || g.IsError != w.IsError || (g.DurationMS == nil) != (w.DurationMS == nil) {
					t.Errorf("record %d: %+v, run wrote %+v", i+1, g, w)
				}
			}
		})
	}
}

func TestGeminiBatch(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "",
		llmtest.Reply{Text: "One."},
		llmtest.Reply{Status: 400, Error: "the image is unreadable"},
		llmtest.Reply{Text: "Three."},
	)
	defer srv.Close()
	b := connect(t, srv)
	dir, file := imageWorkspace(t, 3, noIDs)
	ctx := context.Background()
	opts := submitOptions(srv, b, dir, file)
	// A file larger than the inline limit goes through the Files API.
	opts.Media = media.Options{InlineLimit: 100}
	res, err := Submit(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	batches := srv.Batches()
	if len(batches) != 1 || batches[0].Input != "" || batches[0].DisplayName != "kesoku "+res.State.ID+" part 1" {
		t.Fatalf("batches %+v: want one of inline requests, named after the state", batches)
	}
	if diff := cmp.Diff([]string{"r1", "r2", "r3"}, batches[0].Keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	uploads := srv.Uploads()
	if len(uploads) != 3 || !strings.Contains(string(batches[0].Requests[0]), `"fileUri":"`+uploads[0].URI+`"`) {
		t.Fatalf("uploads %d, request 1 %s: want the file cited by its URI", len(uploads), batches[0].Requests[0])
	}
	var out recorded
	sum, err := collect(t, ctx, b, res.Path, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := []view{
		{Parent: "call_1", Session: "s1", Name: "analyze_media", Content: `"One."`},
		{Parent: "call_2", Session: "s1", Name: "analyze_media", Kind: "tool_error", Error: "ask gemini-2.5-flash about img2.png: gemini API error: the image is unreadable"},
		{Parent: "call_3", Session: "s1", Name: "analyze_media", Content: `"Three."`},
	}
	if diff := cmp.Diff(want, noHashes(views(out.recs))); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if sum.Deleted != 3 {
		t.Errorf("deleted %d files, want the 3 uploads", sum.Deleted)
	}
	for _, u := range srv.Uploads() {
		if !u.Deleted {
			t.Errorf("%s is not deleted after collection", u.Name)
		}
	}
}

// TestGeminiBatchFile: requests of more than 20 MB go as a JSON Lines file
// through the Files API; it is deleted after collection, and its results
// come from a results file.
func TestGeminiBatchFile(t *testing.T) {
	for _, real := range []bool{true, false} {
		name := "the provider's 20 MB"
		if !real {
			name = "a limit of 100 bytes"
		}
		t.Run(name, func(t *testing.T) {
			if real && testing.Short() {
				t.Skip("sends 22 MB")
			}
			testGeminiBatchFile(t, real)
		})
	}
}

// testGeminiBatchFile sends two requests over the inline limit: the
// provider's own (real), or one of 100 bytes.
func testGeminiBatchFile(t *testing.T, real bool) {
	srv := llmtest.NewServer(llmtest.Gemini, "", llmtest.Reply{Text: "Big one."}, llmtest.Reply{Status: 429, Error: "quota"})
	defer srv.Close()
	var b llm.Batcher = connect(t, srv)
	dir, file := imageWorkspace(t, 2, noIDs)
	if real {
		for i := 1; i <= 2; i++ {
			// 8 MB of PNG each: inline each (under 20 MB), but 21 MB together.
			big := append(pngImage(t, i), bytes.Repeat([]byte{0}, 8_000_000)...)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("img%d.png", i)), big, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		limits := b.BatchLimits()
		limits.MaxInline = 100
		b = &smallBatches{Batcher: b, limits: limits}
	}
	ctx := context.Background()
	res, err := Submit(ctx, submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	batches := srv.Batches()
	if len(batches) != 1 || batches[0].Input == "" {
		t.Fatalf("batches %+v: want one from a file", batches)
	}
	if got := res.State.Parts[0].Files; len(got) != 1 || !strings.HasSuffix(got[0], strings.TrimPrefix(batches[0].Input, "files/")) {
		t.Errorf("part files %v, want the input file %s", got, batches[0].Input)
	}
	var out recorded
	if _, err := collect(t, ctx, b, res.Path, &out); err != nil {
		t.Fatal(err)
	}
	want := []view{
		{Parent: "call_1", Session: "s1", Name: "analyze_media", Content: `"Big one."`},
		{Parent: "call_2", Session: "s1", Name: "analyze_media", Kind: "tool_error", Error: "ask gemini-2.5-flash about img2.png: gemini API error RESOURCE_EXHAUSTED: quota"},
	}
	if diff := cmp.Diff(want, noHashes(views(out.recs))); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for _, u := range srv.Uploads() {
		if u.Name == batches[0].Input && !u.Deleted {
			t.Errorf("the input file %s is not deleted after collection", u.Name)
		}
	}
}

// TestGeminiBatchFailed: a batch that fails, expires or is cancelled as a
// whole gives every request an error record saying so, with Gemini's
// reason.
func TestGeminiBatchFailed(t *testing.T) {
	for state, outcome := range map[string]string{
		"JOB_STATE_FAILED":    "failed with its batch (JOB_STATE_FAILED)",
		"JOB_STATE_EXPIRED":   "expired with its batch (JOB_STATE_EXPIRED)",
		"JOB_STATE_CANCELLED": "was cancelled with its batch (JOB_STATE_CANCELLED)",
	} {
		t.Run(state, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Gemini, "", llmtest.Reply{Text: "never"}, llmtest.Reply{Text: "never"})
			defer srv.Close()
			srv.SetBatchState(state)
			b := connect(t, srv)
			dir, file := imageWorkspace(t, 2, noIDs)
			res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var out recorded
			sum, err := collect(t, context.Background(), b, res.Path, &out)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Failed != 2 {
				t.Fatalf("summary %+v, want 2 failures", sum)
			}
			want := "batches/b1: the request " + outcome + ": fake gemini: the batch ended in " + strings.Replace(state, "JOB_", "BATCH_", 1)
			for _, r := range out.recs {
				if !strings.Contains(r.Error.Message, want) {
					t.Errorf("record %s: %s\nwant it to say %s", r.ParentID, r.Error.Message, want)
				}
			}
		})
	}
}

// smallBatches holds a provider to smaller batches than its own.
type smallBatches struct {
	llm.Batcher
	limits llm.BatchLimits
	// before, when set, runs before each batch is sent.
	before func(ctx context.Context, n int) context.Context
	sent   int
}

func (s *smallBatches) BatchLimits() llm.BatchLimits { return s.limits }

// Upload is the provider's, so that files go through its Files API.
func (s *smallBatches) Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error) {
	return s.Batcher.(media.Uploader).Upload(ctx, r, mimeType, name)
}

func (s *smallBatches) SubmitBatch(ctx context.Context, in llm.BatchInput) (*llm.Batch, error) {
	s.sent++
	if s.before != nil {
		ctx = s.before(ctx, s.sent)
	}
	return s.Batcher.SubmitBatch(ctx, in)
}

func replies(n int) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = llmtest.Reply{Text: fmt.Sprintf("answer %d", i+1)}
	}
	return out
}

// checkWhole checks that the records answer every request once, in
// order: request i with answer i.
func checkWhole(t *testing.T, recs []*message.Record, n int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if want := fmt.Sprintf(`"answer %d"`, i+1); r.ParentID != fmt.Sprintf("call_%d", i+1) || string(r.Content) != want {
			t.Errorf("record %d: %s %s, want call_%d %s", i+1, r.ParentID, r.Content, i+1, want)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits llm.BatchLimits
		parts  []int
	}{
		{"by count", llm.BatchLimits{MaxRequests: 3}, []int{3, 3, 1}},
		{"by bytes", llm.BatchLimits{MaxBytes: 1500}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Claude, "", replies(7)...)
			defer srv.Close()
			b := &smallBatches{Batcher: connect(t, srv), limits: tc.limits}
			dir, file := imageWorkspace(t, 7, noIDs)
			res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			var keys []string
			for i, bt := range srv.Batches() {
				sizes = append(sizes, len(bt.Keys))
				keys = append(keys, bt.Keys...)
				p := res.State.Parts[i]
				if p.Batch != bt.ID || int(p.Count()) != len(bt.Keys) {
					t.Errorf("part %d: %+v, batch %s of %d", i+1, p, bt.ID, len(bt.Keys))
				}
				if tc.limits.MaxBytes > 0 && p.Bytes > tc.limits.MaxBytes {
					t.Errorf("part %d is %d bytes, over %d", i+1, p.Bytes, tc.limits.MaxBytes)
				}
			}
			if tc.parts != nil && !slices.Equal(sizes, tc.parts) {
				t.Errorf("parts of %v requests, want %v", sizes, tc.parts)
			}
			if len(sizes) < 2 {
				t.Errorf("%d parts: the limits did not split", len(sizes))
			}
			if want := []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7"}; !slices.Equal(keys, want) {
				t.Errorf("keys %v, want %v", keys, want)
			}
			var out recorded
			if _, err := collect(t, context.Background(), b, res.Path, &out); err != nil {
				t.Fatal(err)
			}
			checkWhole(t, out.recs, 7)
		})
	}
}

// TestLimits: the providers' own limits on a batch, as they document them.
func TestLimits(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "")
	defer srv.Close()
	if got := connect(t, srv).BatchLimits(); got.MaxRequests != 100_000 || got.MaxBytes > 256_000_000 || got.MaxBytes < 255_000_000 {
		t.Errorf("claude limits %+v", got)
	}
	gsrv := llmtest.NewServer(llmtest.Gemini, "")
	defer gsrv.Close()
	if got := connect(t, gsrv).BatchLimits(); got.MaxBytes != 2_000_000_000 || got.MaxInline != 20_000_000 {
		t.Errorf("gemini limits %+v", got)
	}
}

// TestSubmitInterrupted interrupts submit at each step; the same submit
// then sends the rest, and every request is sent exactly once.
func TestSubmitInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name string
		// at interrupts during the check (0) or around sending part n.
		at int
		// abandon ends the grace too: the part being sent is abandoned.
		abandon bool
		// sentFirst is how many parts the interrupted submit sends.
		sentFirst int
	}{
		{name: "while checking", at: 0, sentFirst: 0},
		{name: "while sending part 1", at: 1, sentFirst: 1},
		{name: "while sending part 2", at: 2, sentFirst: 2},
		{name: "abandoning part 2", at: 2, abandon: true, sentFirst: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Claude, "", replies(7)...)
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			abandon := make(chan struct{})
			b := &smallBatches{Batcher: connect(t, srv), limits: llm.BatchLimits{MaxRequests: 3}}
			b.before = func(sendCtx context.Context, n int) context.Context {
				if n == tc.at {
					cancel()
					if tc.abandon {
						close(abandon)
						<-sendCtx.Done()
					}
				}
				return sendCtx
			}
			dir, file := imageWorkspace(t, 7, noIDs)
			opts := submitOptions(srv, b, dir, file)
			opts.Abandon = abandon
			if tc.at == 0 {
				cancel()
			}
			res, err := Submit(ctx, opts)
			if !errors.Is(err, context.Canceled) && !(tc.abandon && err != nil) {
				t.Fatalf("interrupted submit: %v", err)
			}
			if got := len(srv.Batches()); got != tc.sentFirst {
				t.Fatalf("%d batches after the interrupt, want %d", got, tc.sentFirst)
			}
			if res != nil && res.State.Submitted {
				t.Fatal("an interrupted submit says it is done")
			}

			b.before = nil
			opts.Abandon = nil
			res, err = Submit(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.State.Submitted {
				t.Fatal("the second submit did not finish")
			}
			var keys []string
			for _, bt := range srv.Batches() {
				keys = append(keys, bt.Keys...)
			}
			if want := []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7"}; !slices.Equal(keys, want) {
				t.Fatalf("keys sent %v, want each once: %v", keys, want)
			}
			var out recorded
			if _, err := collect(t, context.Background(), b, res.Path, &out); err != nil {
				t.Fatal(err)
			}
			checkWhole(t, out.recs, 7)
		})
	}
}

// TestSubmitInterruptedUploads: files uploaded for a part that was never
// sent are deleted, and uploaded again when submit goes on.
func TestSubmitInterruptedUploads(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "", replies(4)...)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &smallBatches{Batcher: connect(t, srv), limits: llm.BatchLimits{MaxRequests: 2}}
	dir, file := imageWorkspace(t, 4, noIDs)
	opts := submitOptions(srv, b, dir, file)
	opts.Media = media.Options{InlineLimit: 100}
	opts.Notify = func(string) { cancel() } // after part 1 is sent
	if _, err := Submit(ctx, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted submit: %v", err)
	}
	// Part 1's two files, and the first of part 2, which the interrupt
	// left unsent: deleted at once.
	up := srv.Uploads()
	if len(up) != 3 || up[0].Deleted || up[1].Deleted || !up[2].Deleted {
		t.Fatalf("uploads after the interrupt: %+v", up)
	}
	opts.Notify = nil
	res, err := Submit(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Uploads()); n != 5 {
		t.Errorf("%d uploads, want 5: part 2's first file again", n)
	}
	var out recorded
	if _, err := collect(t, context.Background(), b, res.Path, &out); err != nil {
		t.Fatal(err)
	}
	checkWhole(t, out.recs, 4)
	for _, u := range srv.Uploads() {
		if !u.Deleted {
			t.Errorf("%s is left after collection", u.Name)
		}
	}
}

// TestCollectInterrupted interrupts collect after each record; the same
// collect then writes the rest, and every request has exactly one record.
func TestCollectInterrupted(t *testing.T) {
	for stop := 1; stop <= 6; stop++ {
		t.Run(fmt.Sprint(stop), func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Claude, "", replies(7)...)
			defer srv.Close()
			b := &smallBatches{Batcher: connect(t, srv), limits: llm.BatchLimits{MaxRequests: 3}}
			dir, file := imageWorkspace(t, 7, noIDs)
			res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out recorded
			_, err = collect(t, ctx, b, res.Path, &out, func(o *CollectOptions) {
				emit := o.Emit
				o.Emit = func(r *message.Record) error {
					if err := emit(r); err != nil {
						return err
					}
					if len(out.recs) == stop {
						cancel()
					}
					return nil
				}
			})
			if !errors.Is(err, context.Canceled) || len(out.recs) != stop {
				t.Fatalf("interrupted collect: %v, %d records; want %d", err, len(out.recs), stop)
			}
			sum, err := collect(t, context.Background(), b, res.Path, &out)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Skipped != stop {
				t.Errorf("skipped %d, want %d", sum.Skipped, stop)
			}
			checkWhole(t, out.recs, 7)
		})
	}
}

// TestCollectWaits: a part in progress stops collect after the records
// before it, or, with Wait, is looked at again until it ends.
func TestCollectWaits(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "", replies(4)...)
	defer srv.Close()
	b := &smallBatches{Batcher: connect(t, srv), limits: llm.BatchLimits{MaxRequests: 2}}
	dir, file := imageWorkspace(t, 4, noIDs)
	res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	// Part 1 ends at the first look, part 2 at the third: the first
	// look of part 2 finds it in progress.
	srv.SetBatchPolls(0)
	var out recorded
	if _, err := b.Batch(context.Background(), res.State.Parts[0].Batch); err != nil {
		t.Fatal(err)
	}
	srv.SetBatchPolls(2)
	_, err = collect(t, context.Background(), b, res.Path, &out)
	var pending *PendingError
	if !errors.As(err, &pending) || pending.Part != 2 || len(out.recs) != 2 {
		t.Fatalf("collect: %v, %d records; want part 2 pending after 2 records", err, len(out.recs))
	}
	var notes []string
	_, err = collect(t, context.Background(), b, res.Path, &out, func(o *CollectOptions) {
		o.Wait, o.Poll = true, time.Millisecond
		o.Notify = func(s string) { notes = append(notes, s) }
	})
	if err != nil {
		t.Fatal(err)
	}
	checkWhole(t, out.recs, 4)
	if len(notes) != 1 || !strings.Contains(notes[0], "waiting for part 2 of 2 (msgbatch_fake_2): in_progress, 0 of 2 done") {
		t.Errorf("notices %q", notes)
	}
}

func TestRefused(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "")
	defer srv.Close()
	b := connect(t, srv)
	dir, _ := imageWorkspace(t, 1, noIDs)
	if err := os.WriteFile(filepath.Join(dir, "tone.wav"), []byte("RIFF\x24\x00\x00\x00WAVEfmt "), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "mixed.yaml")
	os.WriteFile(file, []byte(`- {name: analyze_media, args: {path: img1.png}}
- {name: calculate_sum, args: {a: 1, b: 2}}
- {name: analyze_media, args: {path: nope.png}}
- {name: analyze_media, args: {path: tone.wav}}
- {id: x, name: analyze_media, args: {path: img1.png}}
- {id: x, name: analyze_media, args: {path: img1.png}}
- {name: analyze_media, args: {prompt: where is the path?}}
`), 0o644)
	_, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	var ref *Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("submit: %v, want a refusal", err)
	}
	want := []string{
		"mixed.yaml:2:4: request 2 calls calculate_sum: a batch takes only analyze_media requests",
		"mixed.yaml:3:4: request 3: path \"nope.png\": no such file",
		"mixed.yaml:4:4: request 4: tone.wav: claude cannot take audio",
		"mixed.yaml:6:4: request 6: invalid_request: duplicate id \"x\"",
		"mixed.yaml:7:4: request 7: invalid_args: tool \"analyze_media\": args.path: missing required argument",
	}
	if ref.Total != len(want) {
		t.Errorf("%d problems, want %d:\n%v", ref.Total, len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal does not say %q:\n%v", w, err)
		}
	}
	if len(srv.Batches()) != 0 {
		t.Error("a refused batch was sent")
	}
	if _, err := os.Stat(filepath.Join(dir, ".kesoku", "batches")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused batch left a state: %v", err)
	}
}

// TestCollectChangedRequests: collect reads the very requests that were
// sent, or refuses.
func TestCollectChangedRequests(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "", replies(5)...)
	defer srv.Close()
	b := connect(t, srv)
	dir, file := imageWorkspace(t, 2, noIDs)
	res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"name": "analyze_media", "args": {"path": "img1.png"}}` + "\n")
	f.Close()
	var out recorded
	_, err = collect(t, context.Background(), b, res.Path, &out)
	var bad *UsageError
	if !errors.As(err, &bad) || !errors.Is(err, ErrChanged) || len(out.recs) != 0 {
		t.Errorf("collect of changed requests: %v, %d records", err, len(out.recs))
	}
	// Submitting the changed file is a new batch, not the old one's.
	res2, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	if err != nil || res2.Path == res.Path || res2.Sent != 3 {
		t.Errorf("the changed file's batch: %+v, %v", res2, err)
	}
}

func TestKeys(t *testing.T) {
	for _, pos := range []int64{1, 9, 10, 100_000, 1 << 40} {
		if got := position(Key(pos)); got != pos {
			t.Errorf("position(Key(%d)) = %d", pos, got)
		}
		if !claudeCustomID(Key(pos)) {
			t.Errorf("Key(%d) = %q breaks Claude's custom_id pattern", pos, Key(pos))
		}
	}
	for _, k := range []string{"", "r", "r0", "r01", "x1", "r-1", "r1a"} {
		if got := position(k); got != 0 {
			t.Errorf("position(%q) = %d, want 0", k, got)
		}
	}
}

func claudeCustomID(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// TestGeminiStatus: status counts a Gemini batch's requests by outcome,
// in progress and ended, as it does Claude's.
func TestGeminiStatus(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "", llmtest.Reply{Text: "One."}, llmtest.Reply{Status: 400, Error: "no"}, llmtest.Reply{Text: "Three."})
	defer srv.Close()
	srv.SetBatchPolls(1)
	b := connect(t, srv)
	dir, file := imageWorkspace(t, 3, noIDs)
	res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		counts llm.BatchCounts
		line   string
	}{
		{llm.BatchCounts{Processing: 3}, "part 1, requests 1 to 3, batches/b1: JOB_STATE_RUNNING (3 processing)"},
		{llm.BatchCounts{Succeeded: 2, Errored: 1}, "part 1, requests 1 to 3, batches/b1: JOB_STATE_SUCCEEDED (2 succeeded, 1 errored)"},
	} {
		parts, err := Status(context.Background(), res.State, b)
		if err != nil {
			t.Fatal(err)
		}
		if c := parts[0].Batch.Counts; c == nil || *c != want.counts {
			t.Errorf("counts %+v, want %+v", c, want.counts)
		}
		var out strings.Builder
		Report(&out, res.State, parts, time.Now())
		if !strings.Contains(out.String(), want.line) {
			t.Errorf("status says:\n%s\nwant a line %q", out.String(), want.line)
		}
	}
}

// TestGeminiStatusFilesExpire: Gemini gives a batch no expiry of its own,
// but deletes the files its requests name 48 hours after their upload;
// the state keeps when, and status says it while the part runs.
func TestGeminiStatusFilesExpire(t *testing.T) {
	for _, asFile := range []bool{true, false} {
		t.Run(fmt.Sprintf("as file %v", asFile), func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Gemini, "", llmtest.Reply{Text: "One."}, llmtest.Reply{Text: "Two."})
			defer srv.Close()
			srv.SetBatchPolls(1)
			var b llm.Batcher = connect(t, srv)
			if asFile {
				limits := b.BatchLimits()
				limits.MaxInline = 100
				b = &smallBatches{Batcher: b, limits: limits}
			}
			dir, file := imageWorkspace(t, 2, noIDs)
			before := time.Now().Add(-time.Second)
			res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
			if err != nil {
				t.Fatal(err)
			}
			fe := res.State.Parts[0].FilesExpire
			switch {
			case !asFile && !fe.IsZero():
				t.Fatalf("an inline part of no uploads expires %v", fe)
			case asFile && (fe.Before(before.Add(48*time.Hour)) || fe.After(time.Now().Add(48*time.Hour))):
				t.Fatalf("the part's files expire %v, want 48 hours after the upload, at %v", fe, before)
			}
			loaded, err := Load(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !loaded.Parts[0].FilesExpire.Equal(fe) {
				t.Errorf("the state file keeps %v, want %v", loaded.Parts[0].FilesExpire, fe)
			}
			parts, err := Status(context.Background(), loaded, b)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			Report(&out, loaded, parts, fe.Add(-47*time.Hour))
			got := strings.Contains(out.String(), "; its uploaded files expire "+fe.Format("2006-01-02 15:04 UTC")+" (in 47h)")
			if got != asFile {
				t.Errorf("status says:\n%s\nwant the uploads' expiry: %v", out.String(), asFile)
			}
		})
	}
}

// lostAnswer is a provider whose batch is created, but whose answer never
// reaches submit: as when submit is killed, or its connection cut, while
// the provider creates the batch.
type lostAnswer struct{ *smallBatches }

func (l lostAnswer) SubmitBatch(ctx context.Context, in llm.BatchInput) (*llm.Batch, error) {
	if _, err := l.smallBatches.SubmitBatch(ctx, in); err != nil {
		return nil, err
	}
	return nil, errors.New("read: connection reset by peer")
}

// finding is smallBatches with the provider's FindBatch.
type finding struct{ *smallBatches }

func (f finding) FindBatch(ctx context.Context, name string, since time.Time) (*llm.Batch, error) {
	return f.Batcher.(llm.BatchFinder).FindBatch(ctx, name, since)
}

// TestSubmitLostAnswer: a submit stopped after the provider created a
// part, before it recorded it, does not have the next submit send the
// part again where the provider can be asked for it by name (Gemini):
// the user would pay twice. Claude names no batches: the part is sent
// again, saying so.
func TestSubmitLostAnswer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider llmtest.Provider
		asFile   bool
	}{
		{"claude", llmtest.Claude, false},
		{"gemini inline", llmtest.Gemini, false},
		{"gemini file", llmtest.Gemini, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(tc.provider, "", replies(8)...)
			defer srv.Close()
			limits := llm.BatchLimits{MaxRequests: 2}
			if tc.provider == llmtest.Gemini {
				limits = connect(t, srv).BatchLimits()
				limits.MaxRequests = 2
				if tc.asFile {
					limits.MaxInline = 100
				}
			}
			small := &smallBatches{Batcher: connect(t, srv), limits: limits}
			dir, file := imageWorkspace(t, 3, noIDs)
			opts := submitOptions(srv, lostAnswer{small}, dir, file)
			if _, err := Submit(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "connection reset") {
				t.Fatalf("submit whose answer was lost: %v", err)
			}
			if got := len(srv.Batches()); got != 1 {
				t.Fatalf("%d batches, want the one created", got)
			}

			var notices []string
			var again llm.Batcher = small
			if tc.provider == llmtest.Gemini {
				again = finding{small}
			}
			opts = submitOptions(srv, again, dir, file)
			opts.Notify = func(s string) { notices = append(notices, s) }
			res, err := Submit(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			batches := srv.Batches()
			var keys []string
			for _, bt := range batches {
				keys = append(keys, bt.Keys...)
			}
			if tc.provider == llmtest.Claude {
				if !slices.Equal(keys, []string{"r1", "r2", "r1", "r2", "r3"}) {
					t.Fatalf("keys sent %v: want part 1 sent again", keys)
				}
				if !strings.Contains(strings.Join(notices, "\n"), "sending it again") {
					t.Errorf("notices %q: want it said that part 1 is sent again", notices)
				}
				return
			}
			if !slices.Equal(keys, []string{"r1", "r2", "r3"}) {
				t.Fatalf("keys sent %v: want each once", keys)
			}
			if !strings.Contains(strings.Join(notices, "\n"), "found part 1, requests 1 to 2, as "+batches[0].ID) {
				t.Errorf("notices %q: want part 1 found", notices)
			}
			p := res.State.Parts[0]
			if p.Batch != batches[0].ID || p.First != 1 || p.Last != 2 || res.State.Sending != nil || !res.State.Submitted {
				t.Fatalf("state %+v: want part 1 as %s", res.State, batches[0].ID)
			}
			if tc.asFile {
				if !slices.ContainsFunc(p.Files, func(f string) bool { return strings.HasSuffix(f, batches[0].Input) }) || p.FilesExpire.IsZero() {
					t.Errorf("part 1's files %v, expiring %v: want its input file %s", p.Files, p.FilesExpire, batches[0].Input)
				}
			}
			var out recorded
			if _, err := collect(t, context.Background(), again, res.Path, &out); err != nil {
				t.Fatal(err)
			}
			checkWhole(t, out.recs, 3)
			for _, u := range srv.Uploads() {
				// (A batch's results file, files/batch-…, is Gemini's.)
				if !u.Deleted && !strings.HasPrefix(u.Name, "files/batch-") {
					t.Errorf("upload %s is not deleted after collection", u.Name)
				}
			}
		})
	}
}

// TestSubmitRefusedPartIsNoLostAnswer: a part the provider refused (an
// HTTP 4xx) was not created: the state keeps no part to look for, and
// the next submit says nothing of one.
func TestSubmitRefusedPartIsNoLostAnswer(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "", replies(2)...)
	defer srv.Close()
	srv.SetBatchLimit(10)
	dir, file := imageWorkspace(t, 2, noIDs)
	res, err := Submit(context.Background(), submitOptions(srv, connect(t, srv), dir, file))
	if err == nil || !strings.Contains(err.Error(), "413") {
		t.Fatalf("submit of a part over the provider's limit: %v", err)
	}
	st, lerr := Load(res.Path)
	if lerr != nil {
		t.Fatal(lerr)
	}
	if st.Sending != nil {
		t.Errorf("the state keeps a part being sent, %+v, which the provider refused", st.Sending)
	}
}
