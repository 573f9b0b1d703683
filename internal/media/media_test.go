package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// recordingProvider is an llm.Provider that records what it is asked and
// answers from a script. The wire format is tested against the fake
// servers of llmtest through the real SDK clients; this one tests what
// media puts into the neutral request.
type recordingProvider struct {
	name   string
	answer string
	err    error

	mu       sync.Mutex
	requests []*llm.Request
}

func (p *recordingProvider) Name() string      { return p.name }
func (p *recordingProvider) ModelName() string { return p.name + "-test" }

func (p *recordingProvider) Generate(_ context.Context, req *llm.Request, _ func(string)) (*llm.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	if p.err != nil {
		return nil, p.err
	}
	// A thought summary comes first, as Gemini sends it: it is no part of
	// the answer.
	parts := []llm.Part{{Text: "Let me look at the file.", Thought: true}, {Text: p.answer}}
	return &llm.Response{Message: llm.Message{Role: message.RoleAssistant, Parts: parts}, StopReason: "stop"}, nil
}

func (p *recordingProvider) sent() []*llm.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// uploadingProvider is a recordingProvider with a Files API.
type uploadingProvider struct {
	*recordingProvider
	uploaded []byte
	mimeType string
	forgot   []string
}

func (p *uploadingProvider) Forget(_ context.Context, uri string) (string, error) {
	p.forgot = append(p.forgot, uri)
	return "files/abc", nil
}

func (p *uploadingProvider) Upload(_ context.Context, r io.Reader, mimeType, _ string) (string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	p.uploaded, p.mimeType = data, mimeType
	return "https://files.example/v1beta/files/abc", nil
}

// userTurn is the one message analyze_media sends: the file, then the
// prompt.
func userTurn(blob *llm.Blob, prompt string) *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Blob: blob}, {Text: prompt}}}}}
}

func TestAnalyzeMedia(t *testing.T) {
	t.Parallel()
	png, jpg, wav, pdf, mp4 := pngBytes(t), jpegBytes(t), wavBytes(), pdfBytes(), mp4Bytes(t)
	prompt := func(s string) *string { return &s }
	tests := []struct {
		name     string
		provider string
		file     string // under the AWD
		data     []byte
		path     string // as the model gives it; file when empty
		prompt   *string
		want     *llm.Request
	}{
		{name: "png to claude", provider: "claude", file: "a.png", data: png, prompt: prompt("what colour?"),
			want: userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: png, Name: "a.png"}, "what colour?")},
		{name: "jpeg to gemini", provider: "gemini", file: "photos/b.jpg", data: jpg, prompt: prompt("describe"),
			want: userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/jpeg", Data: jpg, Name: "photos/b.jpg"}, "describe")},
		{name: "default prompt", provider: "claude", file: "doc.pdf", data: pdf,
			want: userTurn(&llm.Blob{Kind: llm.DocumentBlock, MIMEType: "application/pdf", Data: pdf, Name: "doc.pdf"}, DefaultPrompt)},
		{name: "empty prompt is the default", provider: "gemini", file: "doc.pdf", data: pdf, prompt: prompt(""),
			want: userTurn(&llm.Blob{Kind: llm.DocumentBlock, MIMEType: "application/pdf", Data: pdf, Name: "doc.pdf"}, DefaultPrompt)},
		{name: "wav to gemini", provider: "gemini", file: "tone.wav", data: wav, prompt: prompt("what note?"),
			want: userTurn(&llm.Blob{Kind: llm.MediaBlock, MIMEType: "audio/wav", Data: wav, Name: "tone.wav"}, "what note?")},
		{name: "mp4 to gemini", provider: "gemini", file: "clip.mp4", data: mp4, prompt: prompt("what happens?"),
			want: userTurn(&llm.Blob{Kind: llm.MediaBlock, MIMEType: "video/mp4", Data: mp4, Name: "clip.mp4"}, "what happens?")},
		{name: "misleading extension detected by content", provider: "claude", file: "notes.txt", data: jpg,
			want: userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/jpeg", Data: jpg, Name: "notes.txt"}, DefaultPrompt)},
		{name: "absolute path inside the AWD", provider: "claude", file: "a.png", data: png, path: "$AWD/a.png",
			want: userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: png, Name: "$AWD/a.png"}, DefaultPrompt)},
		{name: "from staging", provider: "claude", file: "$STAGING/in.png", data: png, path: "in.png",
			want: userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: png, Name: "in.png"}, DefaultPrompt)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc, p := newToolContext(t, tt.provider, "an answer")
			writeFile(t, tc.AWD, expand(tc, tt.file), tt.data)
			path := tt.path
			if path == "" {
				path = tt.file
			}
			path = expand(tc, path)
			if tt.want.Messages[0].Parts[0].Blob.Name != "" {
				tt.want.Messages[0].Parts[0].Blob.Name = expand(tc, tt.want.Messages[0].Parts[0].Blob.Name)
			}
			got, err := analyze(t.Context(), tc, path, tt.prompt)
			if err != nil {
				t.Fatalf("AnalyzeMedia: %v", err)
			}
			if got != "an answer" {
				t.Errorf("AnalyzeMedia = %q, want the model's answer", got)
			}
			sent := p.sent()
			if len(sent) != 1 {
				t.Fatalf("%d requests sent, want 1", len(sent))
			}
			if diff := cmp.Diff(tt.want, sent[0]); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// expand replaces $AWD and $STAGING; a file under $STAGING is written
// relative to the AWD, where staging lives.
func expand(tc *toolCall, s string) string {
	s = strings.ReplaceAll(s, "$AWD", tc.AWD)
	if strings.HasPrefix(s, "$STAGING/") {
		rel, _ := filepath.Rel(tc.AWD, tc.Staging)
		return filepath.Join(rel, strings.TrimPrefix(s, "$STAGING/"))
	}
	return s
}

func newToolContext(t *testing.T, provider, answer string) (*toolCall, *recordingProvider) {
	t.Helper()
	awd := t.TempDir()
	p := &recordingProvider{name: provider, answer: answer}
	return &toolCall{AWD: awd, Staging: filepath.Join(awd, ".kesoku", "staging"), Model: p}, p
}

func TestAnalyzeMediaRefuses(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFile(t, outside, "secret.png", pngBytes(t))
	tests := []struct {
		name     string
		provider string
		setup    func(t *testing.T, awd string)
		path     string
		want     string
	}{
		{name: "audio to claude", provider: "claude", path: "tone.wav",
			setup: func(t *testing.T, awd string) { writeFile(t, awd, "tone.wav", wavBytes()) },
			want:  "tone.wav: claude cannot take audio (audio/wav)"},
		{name: "video to claude", provider: "claude", path: "clip.mp4",
			setup: func(t *testing.T, awd string) { writeFile(t, awd, "clip.mp4", mp4Bytes(t)) },
			want:  "clip.mp4: claude cannot take video (video/mp4)"},
		{name: "an archive to gemini", provider: "gemini", path: "a.zip",
			setup: func(t *testing.T, awd string) {
				writeFile(t, awd, "a.zip", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00"))
			},
			want: "a.zip: gemini cannot take this kind of file (application/zip)"},
		{name: "a large image to claude", provider: "claude", path: "big.png",
			setup: func(t *testing.T, awd string) {
				writeFile(t, awd, "big.png", append(pngBytes(t), make([]byte, 4<<20)...))
			},
			want: "claude takes at most 5.0 MiB per image"},
		{name: "dot-dot", provider: "claude", path: "../secret.png",
			want: `path "../secret.png" leads outside the working directory`},
		{name: "absolute elsewhere", provider: "claude", path: filepath.Join(outside, "secret.png"),
			want: "secret.png\" leads outside the working directory"},
		{name: "symlink out", provider: "claude", path: "link.png",
			setup: func(t *testing.T, awd string) {
				if err := os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(awd, "link.png")); err != nil {
					t.Skip(err)
				}
			},
			want: `path "link.png" leads outside the working directory (symbolic link "link.png" points to`},
		{name: "a directory", provider: "claude", path: "dir",
			setup: func(t *testing.T, awd string) { os.Mkdir(filepath.Join(awd, "dir"), 0o755) },
			want:  "dir is not a regular file"},
		{name: "empty", provider: "gemini", path: "empty.png",
			setup: func(t *testing.T, awd string) { writeFile(t, awd, "empty.png", nil) },
			want:  "empty.png is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc, p := newToolContext(t, tt.provider, "unused")
			if tt.setup != nil {
				tt.setup(t, tc.AWD)
			}
			_, err := analyze(t.Context(), tc, tt.path, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("analyze(%q) = %v, want an error saying %q", tt.path, err, tt.want)
			}
			if !toolspec.IsInvalidArgs(err) {
				t.Errorf("analyze(%q) = %v, want an invalid_args error", tt.path, err)
			}
			if !strings.HasPrefix(err.Error(), "args.path: ") {
				t.Errorf("error %q does not name the argument", err)
			}
			if n := len(p.sent()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestAnalyzeMediaToolErrors(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	writeFile(t, awd, "a.png", pngBytes(t))
	tests := []struct {
		name string
		tc   *toolCall
		path string
		want string
	}{
		{"no tool context", nil, "a.png", "analyze_media needs a model"},
		{"no model", &toolCall{AWD: awd}, "a.png", "analyze_media needs a model, and this command was given none"},
		{"a model that cannot be asked", &toolCall{AWD: awd, Model: nameOnly("x")}, "a.png", "not one"},
		{"a provider without media", &toolCall{AWD: awd, Model: &recordingProvider{name: "mistral"}}, "a.png", `provider "mistral" takes no files`},
		{"a missing file, as for the file tools", &toolCall{AWD: awd, Model: &recordingProvider{name: "claude"}}, "a.pgn", `path "a.pgn": no such file or directory`},
		{"the model fails", &toolCall{AWD: awd, Model: &recordingProvider{name: "claude", err: errors.New("overloaded")}}, "a.png",
			"ask claude-test about a.png: overloaded"},
		{"the model says nothing", &toolCall{AWD: awd, Model: &recordingProvider{name: "claude"}}, "a.png",
			`ask claude-test about a.png: the model gave no answer (stop reason "stop")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := analyze(t.Context(), tt.tc, tt.path, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("AnalyzeMedia = %v, want an error saying %q", err, tt.want)
			}
			if toolspec.IsInvalidArgs(err) {
				t.Errorf("AnalyzeMedia = %v: want a tool error, not invalid_args", err)
			}
		})
	}
}

type nameOnly string

func (n nameOnly) ModelName() string { return string(n) }

func TestAnalyzeMediaUploadsLargeFiles(t *testing.T) {
	t.Parallel()
	tc, rec := newToolContext(t, "gemini", "a long video")
	p := &uploadingProvider{recordingProvider: rec}
	tc.Model = WithOptions(p, Options{InlineLimit: 100})
	video := append(mp4Bytes(t), bytes.Repeat([]byte{7}, 1000)...)
	writeFile(t, tc.AWD, "long.mp4", video)

	got, err := analyze(t.Context(), tc, "long.mp4", nil)
	if err != nil {
		t.Fatalf("AnalyzeMedia: %v", err)
	}
	if got != "a long video" {
		t.Errorf("AnalyzeMedia = %q", got)
	}
	if !bytes.Equal(p.uploaded, video) || p.mimeType != "video/mp4" {
		t.Errorf("uploaded %d bytes of %s, want the %d bytes of the file as video/mp4", len(p.uploaded), p.mimeType, len(video))
	}
	want := userTurn(&llm.Blob{Kind: llm.MediaBlock, MIMEType: "video/mp4", URI: "https://files.example/v1beta/files/abc", Name: "long.mp4"}, DefaultPrompt)
	sent := rec.sent()
	if len(sent) != 1 {
		t.Fatalf("%d requests sent, want 1", len(sent))
	}
	if diff := cmp.Diff(want, sent[0]); diff != "" {
		t.Errorf("request mismatch (-want +got):\n%s", diff)
	}
	if want := []string{"https://files.example/v1beta/files/abc"}; !slices.Equal(p.forgot, want) {
		t.Errorf("forgot %q, want %q: the upload deleted once the answer is in", p.forgot, want)
	}
}

func TestAskRefusesUploadWithoutUploader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := os.Open(writeFile(t, dir, "long.mp4", mp4Bytes(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, _ := CapabilityOf("gemini", Options{InlineLimit: 10})
	a, err := Prepare(f, "long.mp4", c, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProvider{name: "gemini"}
	if _, err := Ask(t.Context(), p, a, "x"); err == nil || !strings.Contains(err.Error(), "cannot take uploaded files") {
		t.Errorf("Ask = %v, want a refusal to upload", err)
	}
	if _, err := Ask(t.Context(), &recordingProvider{name: "claude"}, a, "x"); err == nil || !strings.Contains(err.Error(), "checked for gemini, not claude") {
		t.Errorf("Ask = %v, want a refusal of a file checked for another provider", err)
	}
	if n := len(p.sent()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// TestRegistered calls analyze_media as the runner does: through the
// registration kesoku gen wrote, with arguments as a model sends them.
func TestRegistered(t *testing.T) {
	t.Parallel()
	spec, ok := registry.Default.Lookup("analyze_media")
	if !ok {
		t.Fatal("analyze_media is not registered: run go generate ./internal/media")
	}
	var params []string
	for _, p := range spec.Params {
		params = append(params, fmt.Sprintf("%s %s required=%v default=%s", p.Name, p.Schema.Type, p.Required, p.Schema.Default))
	}
	want := []string{"path string required=true default=", `prompt string required=false default="Describe this file."`}
	if diff := cmp.Diff(want, params); diff != "" {
		t.Errorf("parameters mismatch (-want +got):\n%s", diff)
	}

	tc, p := newToolContext(t, "gemini", "a gradient")
	png := pngBytes(t)
	writeFile(t, tc.AWD, "a.png", png)
	ctx := toolset.WithEnv(t.Context(), &toolset.Env{Model: tc.Model})
	got, err := spec.Call(ctx, &registry.ToolContext{AWD: tc.AWD, Staging: tc.Staging}, map[string]any{"path": "a.png"})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got != "a gradient" {
		t.Errorf("Call = %v, want the model's answer", got)
	}
	wantReq := userTurn(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: png, Name: "a.png"}, DefaultPrompt)
	if diff := cmp.Diff([]*llm.Request{wantReq}, p.sent()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

// toolCall is a ToolContext and the model of its call, as the runner gives
// them: the model in the call's context.
type toolCall struct {
	AWD, Staging string
	Model        toolset.Model
}

// analyze calls analyze_media as the runner does, under c.
func analyze(ctx context.Context, c *toolCall, path string, prompt *string) (string, error) {
	if c == nil {
		return AnalyzeMedia(ctx, nil, path, prompt)
	}
	ctx = toolset.WithEnv(ctx, &toolset.Env{Model: c.Model})
	return AnalyzeMedia(ctx, &registry.ToolContext{AWD: c.AWD, Staging: c.Staging}, path, prompt)
}
