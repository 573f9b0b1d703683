package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"
)

// These tests run kesoku as main does, against the fake providers of
// llmtest through the real SDK clients. They set API keys in the
// environment, so none of them runs in parallel.

const analyzeKey = "test-analyze-key-4e0b"

func pngFile(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{0, 0, 255, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wavFile is a WAV with four samples: a real RIFF/WAVE file.
var wavFile = []byte("RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x08\x00\x00\x00\x00\x00\xff\x7f\x00\x00\x01\x80")

func mp4File(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "media", "tiny.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeBytes(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// kesoku runs the whole program with in-memory streams.
func kesoku(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}, args)
	return out.String(), errOut.String(), code
}

func setKeys(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", analyzeKey)
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", analyzeKey)
}

func TestAnalyze(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	pngData := pngFile(t)
	writeBytes(t, dir, "dot.png", pngData)
	writeBytes(t, dir, "tone.wav", wavFile)
	// A file elsewhere, named by an absolute path: the command line is
	// not confined to the AWD.
	elsewhere := writeBytes(t, t.TempDir(), "photo.jpg", pngData)

	tests := []struct {
		name     string
		provider llmtest.Provider
		args     []string
		wantOut  string
		wantMIME string
		wantText string
	}{
		{"claude with a prompt", llmtest.Claude, []string{"dot.png", "where is the dot?"}, "Near the top left.\n", "image/png", "where is the dot?"},
		{"gemini with the default prompt", llmtest.Gemini, []string{"dot.png"}, "Near the top left.\n", "image/png", "Describe this file."},
		{"wav to gemini", llmtest.Gemini, []string{"tone.wav", "what do you hear?"}, "Near the top left.\n", "audio/wav", "what do you hear?"},
		{"an absolute path outside the AWD, named .jpg", llmtest.Claude, []string{elsewhere, "what is it?"}, "Near the top left.\n", "image/png", "what is it?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(tt.provider, analyzeKey, llmtest.Reply{Text: "Near the top left."})
			defer srv.Close()
			args := append([]string{"analyze", "--awd", dir, "--model", string(tt.provider) + "-test", "--base-url", srv.URL}, tt.args...)
			// The command line's relative paths are the current directory's.
			t.Chdir(dir)
			stdout, stderr, code := kesoku(t, args...)
			if code != 0 || stdout != tt.wantOut {
				t.Fatalf("kesoku %v = %d, stdout %q, stderr %q; want 0 and %q", args, code, stdout, stderr, tt.wantOut)
			}
			mime, text := userTurn(t, srv)
			if mime != tt.wantMIME || text != tt.wantText {
				t.Errorf("sent %s with %q, want %s with %q", mime, text, tt.wantMIME, tt.wantText)
			}
		})
	}
}

// userTurn returns the MIME type of the file and the text the only
// request carried.
func userTurn(t *testing.T, srv *llmtest.Server) (mime, text string) {
	t.Helper()
	bodies := srv.Bodies()
	if len(bodies) != 1 {
		t.Fatalf("the fake received %d requests, want 1", len(bodies))
	}
	raw, _ := json.Marshal(bodies[0])
	if srv.Provider() == llmtest.Gemini {
		var b struct {
			Contents []struct {
				Parts []struct {
					Text       string
					InlineData *struct{ MIMEType string }
					FileData   *struct{ MIMEType string }
				}
			}
		}
		json.Unmarshal(raw, &b)
		for _, p := range b.Contents[0].Parts {
			switch {
			case p.InlineData != nil:
				mime = p.InlineData.MIMEType
			case p.FileData != nil:
				mime = "fileData:" + p.FileData.MIMEType
			default:
				text = p.Text
			}
		}
		return mime, text
	}
	var b struct {
		Messages []struct {
			Content []struct {
				Type   string
				Text   string
				Source struct {
					MediaType string `json:"media_type"`
				}
			}
		}
	}
	json.Unmarshal(raw, &b)
	for _, c := range b.Messages[0].Content {
		if c.Type == "text" {
			text = c.Text
		} else {
			mime = c.Source.MediaType
		}
	}
	return mime, text
}

func TestAnalyzeJSON(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	path := writeBytes(t, dir, "dot.png", pngFile(t))
	srv := llmtest.NewServer(llmtest.Claude, analyzeKey, llmtest.Reply{Text: "A blue dot."})
	defer srv.Close()

	stdout, stderr, code := kesoku(t, "analyze", path, "--json", "--model", "claude-test", "--base-url", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	recs := decodeRecords(t, stdout)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %s", len(recs), stdout)
	}
	r := recs[0]
	if r.ID == "" || r.SessionID == "" || r.ID == r.SessionID || r.DurationMS == nil || r.CreatedAt.IsZero() {
		t.Errorf("record %+v: want ids, a time and a duration", r)
	}
	got := message.Record{Role: r.Role, Type: r.Type, Status: r.Status, Name: r.Name, Content: r.Content, Model: r.Model}
	want := message.Record{Role: message.RoleTool, Type: message.TypeToolResult, Status: message.StatusResponded,
		Name: "analyze_media", Content: json.RawMessage(`"A blue dot."`), Model: "claude-test"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record mismatch (-want +got):\n%s", diff)
	}
}

func TestAnalyzeRefusals(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	writeBytes(t, dir, "tone.wav", wavFile)
	writeBytes(t, dir, "tone.png", wavFile)
	writeBytes(t, dir, "big.png", append(pngFile(t), make([]byte, 4<<20)...))
	writeBytes(t, dir, "archive.zip", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00"))
	tests := []struct {
		name     string
		provider llmtest.Provider
		args     []string
		env      map[string]string
		code     int
		stderr   string
		// kind is the error kind of the --json record; "" when the command
		// line is refused before there is a call to record.
		kind message.ErrorKind
	}{
		{name: "audio to claude", provider: llmtest.Claude, args: []string{"tone.wav"}, code: 2,
			stderr: "tone.wav: claude cannot take audio (audio/wav)", kind: message.KindInvalidArgs},
		{name: "audio named .png to claude", provider: llmtest.Claude, args: []string{"tone.png"}, code: 2,
			stderr: "tone.png: claude cannot take audio (audio/wav)", kind: message.KindInvalidArgs},
		{name: "an image too large for claude", provider: llmtest.Claude, args: []string{"big.png"}, code: 2,
			stderr: "claude takes at most 5.0 MiB per image", kind: message.KindInvalidArgs},
		{name: "an archive to gemini", provider: llmtest.Gemini, args: []string{"archive.zip"}, code: 2,
			stderr: "gemini cannot take this kind of file (application/zip)", kind: message.KindInvalidArgs},
		{name: "a missing file", provider: llmtest.Gemini, args: []string{"nope.png"}, code: 2,
			stderr: "open nope.png: no such file or directory", kind: message.KindInvalidArgs},
		{name: "a directory", provider: llmtest.Gemini, args: []string{"."}, code: 2,
			stderr: ". is not a regular file (a directory)", kind: message.KindInvalidArgs},
		{name: "no key", provider: llmtest.Claude, args: []string{"tone.png"}, env: map[string]string{"ANTHROPIC_API_KEY": ""}, code: 2,
			stderr: "no API key for claude: set ANTHROPIC_API_KEY"},
		{name: "no model", provider: llmtest.Claude, args: []string{"tone.png", "--model", ""}, code: 2,
			stderr: "--model is required"},
		{name: "no path", provider: llmtest.Claude, args: []string{}, code: 2, stderr: "analyze needs the PATH of a file"},
		{name: "the provider's own refusal", provider: llmtest.Gemini, args: []string{"tone.wav"}, code: 1,
			stderr: "audio too long", kind: message.KindToolError},
	}
	for _, tt := range tests {
		for _, asJSON := range []bool{false, true} {
			name := tt.name
			if asJSON {
				name += " --json"
			}
			t.Run(name, func(t *testing.T) {
				for k, v := range tt.env {
					t.Setenv(k, v)
				}
				srv := llmtest.NewServer(tt.provider, analyzeKey, llmtest.Reply{Status: 400, Error: "audio too long"})
				defer srv.Close()
				t.Chdir(dir)
				args := append([]string{"analyze", "--model", string(tt.provider) + "-test", "--base-url", srv.URL}, tt.args...)
				if asJSON {
					args = append(args, "--json")
				}
				stdout, stderr, code := kesoku(t, args...)
				if code != tt.code || !strings.Contains(stderr, tt.stderr) {
					t.Fatalf("kesoku %v = %d, stderr %q; want %d saying %q", args, code, stderr, tt.code, tt.stderr)
				}
				if tt.code == 2 && len(srv.Requests()) != 0 {
					t.Errorf("the fake received %d requests, want none", len(srv.Requests()))
				}
				switch {
				case !asJSON || tt.kind == "":
					if stdout != "" {
						t.Errorf("stdout %q, want nothing", stdout)
					}
				default:
					recs := decodeRecords(t, stdout)
					if len(recs) != 1 || recs[0].Error == nil || recs[0].Error.Kind != tt.kind || !recs[0].IsError ||
						!strings.Contains(recs[0].Error.Message, tt.stderr) {
						t.Errorf("records %s, want one %s error saying %q", stdout, tt.kind, tt.stderr)
					}
				}
			})
		}
	}
}

func TestAnalyzeUploadsOverTheInlineLimit(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	video := append(mp4File(t), bytes.Repeat([]byte{1}, 2000)...)
	path := writeBytes(t, dir, "clip.mp4", video)
	srv := llmtest.NewServer(llmtest.Gemini, analyzeKey, llmtest.Reply{Text: "A short clip."})
	defer srv.Close()

	stdout, stderr, code := kesoku(t, "analyze", path, "what happens?", "--model", "gemini-test", "--base-url", srv.URL, "--inline-limit", "1KiB")
	if code != 0 || stdout != "A short clip.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	ups := srv.Uploads()
	if len(ups) != 1 || !bytes.Equal(ups[0].Data, video) {
		t.Fatalf("uploads %+v, want the clip", ups)
	}
	if mime, text := userTurn(t, srv); mime != "fileData:video/mp4" || text != "what happens?" {
		t.Errorf("sent %s with %q, want fileData:video/mp4 with the prompt", mime, text)
	}
}

// TestRunAnalyzeMedia runs analyze_media from a request file, as a model
// would ask for it: the path is confined to the AWD.
func TestRunAnalyzeMedia(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	pngData := pngFile(t)
	writeBytes(t, dir, "dot.png", pngData)
	writeBytes(t, dir, "tone.wav", wavFile)
	writeBytes(t, t.TempDir(), "secret.png", pngData)
	reqs := writeFile(t, dir, "reqs.yaml", `
- {id: ok, name: analyze_media, args: {path: dot.png, prompt: where is the dot?}}
- {id: out, name: analyze_media, args: {path: ../secret.png}}
- {id: audio, name: analyze_media, args: {path: tone.wav}}
`)
	srv := llmtest.NewServer(llmtest.Claude, analyzeKey, llmtest.Reply{Text: "Top left."})
	defer srv.Close()

	stdout, stderr, code := kesoku(t, "run", "--awd", dir, reqs, "--model", "claude-test", "--base-url", srv.URL)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (two error records); stderr %q", code, stderr)
	}
	type result struct {
		Parent  string
		Content string
		Kind    message.ErrorKind
		Says    bool
	}
	var got []result
	says := map[string]string{"out": `path "../secret.png" leads outside the working directory`, "audio": "claude cannot take audio"}
	for _, r := range decodeRecords(t, stdout) {
		res := result{Parent: r.ParentID, Content: string(r.Content)}
		if r.Error != nil {
			res.Kind = r.Error.Kind
			res.Says = strings.Contains(r.Error.Message, says[r.ParentID])
		}
		got = append(got, res)
	}
	want := []result{
		{Parent: "ok", Content: `"Top left."`},
		{Parent: "out", Kind: message.KindInvalidArgs, Says: true},
		{Parent: "audio", Kind: message.KindInvalidArgs, Says: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s\n%s", diff, stdout)
	}
	if mime, text := userTurn(t, srv); mime != "image/png" || text != "where is the dot?" {
		t.Errorf("sent %s with %q, want image/png with the prompt", mime, text)
	}
	// The bytes went over the wire as they are in the file.
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, base64.StdEncoding.EncodeToString(pngData)) {
		t.Errorf("the request does not carry the file's bytes: %s", body)
	}
}

func TestRunAnalyzeMediaWithoutModel(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	writeBytes(t, dir, "dot.png", pngFile(t))
	reqs := writeFile(t, dir, "reqs.yaml", "{name: analyze_media, args: {path: dot.png}}\n")

	stdout, _, code := kesoku(t, "run", "--awd", dir, reqs)
	recs := decodeRecords(t, stdout)
	if code != 1 || len(recs) != 1 || recs[0].Error == nil || recs[0].Error.Kind != message.KindToolError ||
		!strings.Contains(recs[0].Error.Message, "analyze_media needs a model") {
		t.Errorf("exit %d, records %s; want one tool_error saying a model is needed", code, stdout)
	}

	_, stderr, code := kesoku(t, "run", "--awd", dir, reqs, "--provider", "claude")
	if code != 2 || !strings.Contains(stderr, "give --model too") {
		t.Errorf("--provider without --model: exit %d, stderr %q; want 2", code, stderr)
	}
}

// TestRunAnalyzeMediaProvider: kesoku run takes --provider as analyze
// does, for a model whose name does not say its provider (a
// proxy's); the tool asks that provider, and sends audio only Gemini takes.
func TestRunAnalyzeMediaProvider(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	writeBytes(t, dir, "tone.wav", wavFile)
	reqs := writeFile(t, dir, "reqs.yaml", "{id: a, name: analyze_media, args: {path: tone.wav, prompt: what note?}}\n")
	srv := llmtest.NewServer(llmtest.Gemini, analyzeKey, llmtest.Reply{Text: "An A."})
	defer srv.Close()

	_, stderr, code := kesoku(t, "run", "--awd", dir, reqs, "--model", "house-model", "--base-url", srv.URL)
	if code != 2 || !strings.Contains(stderr, "--provider") {
		t.Errorf("a model whose name says no provider: exit %d, stderr %q; want 2 asking for --provider", code, stderr)
	}
	stdout, stderr, code := kesoku(t, "run", "--awd", dir, reqs, "--model", "house-model", "--provider", "gemini", "--base-url", srv.URL)
	recs := decodeRecords(t, stdout)
	if code != 0 || len(recs) != 1 || string(recs[0].Content) != `"An A."` {
		t.Fatalf("exit %d, records %s, stderr %q; want the model's answer", code, stdout, stderr)
	}
	if mime, text := userTurn(t, srv); mime != "audio/wav" || text != "what note?" {
		t.Errorf("sent %s with %q, want audio/wav with the prompt", mime, text)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].Path, "house-model") {
		t.Errorf("requests %+v, want one to the model house-model", reqs)
	}
}

// TestAnalyzeRedactsTheKey: a model (or a proxy) that echoes the key gets
// it into no answer and no record, from kesoku analyze or from
// analyze_media in kesoku run.
func TestAnalyzeRedactsTheKey(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	writeBytes(t, dir, "dot.png", pngFile(t))
	reqs := writeFile(t, dir, "reqs.yaml", "{id: a, name: analyze_media, args: {path: dot.png}}\n")
	echo := llmtest.Reply{Text: "Your key is " + analyzeKey + "."}
	runs := map[string][]string{
		"analyze":        {"analyze", filepath.Join(dir, "dot.png")},
		"analyze --json": {"analyze", filepath.Join(dir, "dot.png"), "--json"},
		"run":            {"run", "--awd", dir, reqs},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Claude, analyzeKey, echo)
			defer srv.Close()
			stdout, stderr, code := kesoku(t, append(args, "--model", "claude-test", "--base-url", srv.URL)...)
			if code != 0 || !strings.Contains(stdout, "Your key is [redacted].") {
				t.Errorf("exit %d, stdout %q, stderr %q; want the answer with the key redacted", code, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, analyzeKey) {
				t.Errorf("the key got out: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestAnalyzeInterrupted: an interrupt while the model thinks cancels the
// request and ends the command with 130; with --json the record says
// aborted.
func TestAnalyzeInterrupted(t *testing.T) {
	setKeys(t)
	path := writeBytes(t, t.TempDir(), "dot.png", pngFile(t))
	srv := llmtest.NewServer(llmtest.Gemini, analyzeKey, llmtest.Reply{Text: "too late", Delay: llmtest.Duration(time.Minute)})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan struct{})
	go func() {
		// Interrupt once the request is in flight; a command that ends
		// without sending it ends the wait.
		if srv.WaitRequests(ended, 1) {
			cancel()
		}
	}()
	var out, errOut bytes.Buffer
	code := run(ctx, &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}},
		[]string{"analyze", path, "--json", "--model", "gemini-test", "--base-url", srv.URL})
	close(ended)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %q", code, ExitInterrupted, errOut.String())
	}
	recs := decodeRecords(t, out.String())
	if len(recs) != 1 || recs[0].Status != message.StatusAborted || recs[0].Error == nil || recs[0].Error.Kind != message.KindAborted {
		t.Errorf("records %s, want one aborted record", out.String())
	}
	// The fake sees the request given up, or else answers it once its
	// minute is over.
	if !srv.WaitCancelled(nil, 0) {
		t.Error("the model request was not cancelled")
	}
}

// TestAnalyzeCutAnswer: an answer the provider cut short is printed, but
// the exit status is 1 and stderr names the reason; with --json the
// record is an error that says it was cut.
func TestAnalyzeCutAnswer(t *testing.T) {
	setKeys(t)
	path := writeBytes(t, t.TempDir(), "dot.png", pngFile(t))
	for _, tt := range []struct {
		provider llmtest.Provider
		reply    llmtest.Reply
		reason   string
	}{
		{llmtest.Gemini, llmtest.Reply{Text: "A blue", StopReason: "MAX_TOKENS"}, "MAX_TOKENS"},
		{llmtest.Gemini, llmtest.Reply{Text: "A blue", StopReason: "SAFETY"}, "SAFETY"},
		{llmtest.Claude, llmtest.Reply{Text: "A blue", StopReason: "refusal"}, "refusal"},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			srv := llmtest.NewServer(tt.provider, analyzeKey, tt.reply, tt.reply)
			defer srv.Close()
			args := []string{"analyze", path, "--model", string(tt.provider) + "-test", "--base-url", srv.URL}
			stdout, stderr, code := kesoku(t, args...)
			if code != 1 || stdout != "A blue\n" || !strings.Contains(stderr, "cut short") || !strings.Contains(stderr, "("+tt.reason+")") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, the partial answer and the reason", code, stdout, stderr)
			}
			stdout, _, code = kesoku(t, append(args, "--json")...)
			recs := decodeRecords(t, stdout)
			if code != 1 || len(recs) != 1 || !recs[0].IsError || recs[0].Cut != tt.reason || recs[0].Error == nil ||
				!strings.Contains(recs[0].Error.Message, tt.reason) {
				t.Errorf("--json: exit %d, records %s; want one error record cut for %s", code, stdout, tt.reason)
			}
		})
	}
}
