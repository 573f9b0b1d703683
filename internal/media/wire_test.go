package media_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// These tests send files through the real SDK clients to the fake servers
// of llmtest, and check what went over the wire: the block, its MIME
// type, the exact bytes and the prompt beside them.

var (
	_ media.Uploader = (*gemini.Provider)(nil)
	_ llm.Provider   = (*claude.Provider)(nil)
)

const wireKey = "test-media-key-91c2"

func newProvider(t *testing.T, srv *llmtest.Server) llm.Provider {
	t.Helper()
	opts := llm.ClientOptions{Model: string(srv.Provider()) + "-test", APIKey: wireKey, BaseURL: srv.URL, Retry: llm.Retry{MaxRetries: -1}}
	var p llm.Provider
	var err error
	switch srv.Provider() {
	case llmtest.Gemini:
		p, err = gemini.New(context.Background(), opts)
	default:
		p, err = claude.New(opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// wirePart is one part of the user turn as it went over the wire, in
// either provider's format.
type wirePart struct {
	// Block is the wire's own name: "image", "document" or "text" for
	// Claude; "inlineData", "fileData" or "text" for Gemini.
	Block string
	MIME  string
	Data  []byte
	URI   string
	Text  string
}

// sentParts decodes the parts of the first user turn of the only request
// the fake received.
func sentParts(t *testing.T, srv *llmtest.Server) []wirePart {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the fake received %d requests, want 1", len(reqs))
	}
	var parts []wirePart
	if srv.Provider() == llmtest.Gemini {
		var body struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					Text       *string `json:"text"`
					InlineData *struct {
						MIMEType string `json:"mimeType"`
						Data     []byte `json:"data"`
					} `json:"inlineData"`
					FileData *struct {
						MIMEType string `json:"mimeType"`
						FileURI  string `json:"fileUri"`
					} `json:"fileData"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Contents) != 1 || body.Contents[0].Role != "user" {
			t.Fatalf("request body %s: want one user turn (%v)", reqs[0].Body, err)
		}
		for _, p := range body.Contents[0].Parts {
			switch {
			case p.InlineData != nil:
				parts = append(parts, wirePart{Block: "inlineData", MIME: p.InlineData.MIMEType, Data: p.InlineData.Data})
			case p.FileData != nil:
				parts = append(parts, wirePart{Block: "fileData", MIME: p.FileData.MIMEType, URI: p.FileData.FileURI})
			case p.Text != nil:
				parts = append(parts, wirePart{Block: "text", Text: *p.Text})
			default:
				t.Fatalf("unexpected part in %s", reqs[0].Body)
			}
		}
		return parts
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source struct {
					Type      string `json:"type"`
					MediaType string `json:"media_type"`
					Data      string `json:"data"`
				} `json:"source"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Messages) != 1 || body.Messages[0].Role != "user" {
		t.Fatalf("request body %s: want one user turn (%v)", reqs[0].Body, err)
	}
	for _, c := range body.Messages[0].Content {
		p := wirePart{Block: c.Type, Text: c.Text, MIME: c.Source.MediaType}
		switch c.Source.Type {
		case "base64":
			data, err := base64.StdEncoding.DecodeString(c.Source.Data)
			if err != nil {
				t.Fatalf("block data is not base64: %v", err)
			}
			p.Data = data
		case "text":
			p.Data = []byte(c.Source.Data)
		}
		parts = append(parts, p)
	}
	return parts
}

func encode(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, i, color.RGBA{255, 0, 0, 255})
	}
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func wireFixtures(t *testing.T) (pngData, jpegData, wav, pdf, mp4 []byte) {
	t.Helper()
	pngData = encode(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	jpegData = encode(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	// The smallest WAV that is one: a RIFF header, a PCM fmt chunk and four
	// samples of data.
	wav = []byte("RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x08\x00\x00\x00\x00\x00\xff\x7f\x00\x00\x01\x80")
	pdf = []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	var err error
	if mp4, err = os.ReadFile(filepath.Join("..", "..", "testdata", "media", "tiny.mp4")); err != nil {
		t.Fatal(err)
	}
	return pngData, jpegData, wav, pdf, mp4
}

func TestAnalyzeMediaOverTheWire(t *testing.T) {
	t.Parallel()
	pngData, jpegData, wav, pdf, mp4 := wireFixtures(t)
	tests := []struct {
		name     string
		provider llmtest.Provider
		file     string
		data     []byte
		prompt   string
		want     []wirePart
	}{
		{"png to claude", llmtest.Claude, "a.png", pngData, "what colour is the line?",
			[]wirePart{{Block: "image", MIME: "image/png", Data: pngData}, {Block: "text", Text: "what colour is the line?"}}},
		{"jpeg to claude", llmtest.Claude, "a.jpg", jpegData, "describe",
			[]wirePart{{Block: "image", MIME: "image/jpeg", Data: jpegData}, {Block: "text", Text: "describe"}}},
		{"pdf to claude", llmtest.Claude, "doc.pdf", pdf, "summarise",
			[]wirePart{{Block: "document", MIME: "application/pdf", Data: pdf}, {Block: "text", Text: "summarise"}}},
		{"text to claude", llmtest.Claude, "notes.md", []byte("# Notes\n\nbuy milk\n"), "what must I buy?",
			[]wirePart{{Block: "document", MIME: "text/plain", Data: []byte("# Notes\n\nbuy milk\n")}, {Block: "text", Text: "what must I buy?"}}},
		{"a png named .txt is a png", llmtest.Claude, "notes.txt", pngData, "what is it?",
			[]wirePart{{Block: "image", MIME: "image/png", Data: pngData}, {Block: "text", Text: "what is it?"}}},
		{"png to gemini", llmtest.Gemini, "a.png", pngData, "what colour is the line?",
			[]wirePart{{Block: "inlineData", MIME: "image/png", Data: pngData}, {Block: "text", Text: "what colour is the line?"}}},
		{"jpeg named .png to gemini", llmtest.Gemini, "photo.png", jpegData, "describe",
			[]wirePart{{Block: "inlineData", MIME: "image/jpeg", Data: jpegData}, {Block: "text", Text: "describe"}}},
		{"wav to gemini", llmtest.Gemini, "tone.wav", wav, "what do you hear?",
			[]wirePart{{Block: "inlineData", MIME: "audio/wav", Data: wav}, {Block: "text", Text: "what do you hear?"}}},
		{"pdf to gemini", llmtest.Gemini, "doc.pdf", pdf, "summarise",
			[]wirePart{{Block: "inlineData", MIME: "application/pdf", Data: pdf}, {Block: "text", Text: "summarise"}}},
		{"mp4 to gemini", llmtest.Gemini, "clip.mp4", mp4, "what happens?",
			[]wirePart{{Block: "inlineData", MIME: "video/mp4", Data: mp4}, {Block: "text", Text: "what happens?"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, wireKey, llmtest.Reply{Text: "It is a test file."})
			defer srv.Close()
			awd := t.TempDir()
			if err := os.WriteFile(filepath.Join(awd, tt.file), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			tc := &toolCall{AWD: awd, Model: newProvider(t, srv)}
			got, err := analyze(t.Context(), tc, tt.file, &tt.prompt)
			if err != nil {
				t.Fatalf("AnalyzeMedia: %v", err)
			}
			if got != "It is a test file." {
				t.Errorf("AnalyzeMedia = %q, want the model's answer", got)
			}
			if diff := cmp.Diff(tt.want, sentParts(t, srv)); diff != "" {
				t.Errorf("user turn on the wire mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalyzeMediaRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	_, _, wav, _, mp4 := wireFixtures(t)
	tests := []struct {
		name string
		file string
		data []byte
		want string
	}{
		{"audio to claude", "tone.wav", wav, "args.path: invalid value: tone.wav: claude cannot take audio (audio/wav)"},
		{"video to claude", "clip.mp4", mp4, "args.path: invalid value: clip.mp4: claude cannot take video (video/mp4)"},
		{"audio named .png to claude", "tone.png", wav, "tone.png: claude cannot take audio (audio/wav)"},
		{"101 pages to claude", "long.pdf", media.PagedPDF(101, true), "long.pdf: the PDF has 101 pages; claude takes at most 100 pages per request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Claude, wireKey, llmtest.Reply{Text: "unused"})
			defer srv.Close()
			awd := t.TempDir()
			if err := os.WriteFile(filepath.Join(awd, tt.file), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			tc := &toolCall{AWD: awd, Model: newProvider(t, srv)}
			_, err := analyze(t.Context(), tc, tt.file, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !toolspec.IsInvalidArgs(err) {
				t.Fatalf("AnalyzeMedia = %v, want an invalid_args error saying %q", err, tt.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the fake received %d requests, want none", n)
			}
		})
	}
}

func TestAnalyzeMediaUploadsOverTheInlineLimit(t *testing.T) {
	t.Parallel()
	_, _, _, _, mp4 := wireFixtures(t)
	video := append(append([]byte{}, mp4...), bytes.Repeat([]byte{0x42}, 4096)...)
	srv := llmtest.NewServer(llmtest.Gemini, wireKey, llmtest.Reply{Text: "A long video."})
	defer srv.Close()
	awd := t.TempDir()
	if err := os.WriteFile(filepath.Join(awd, "long.mp4"), video, 0o644); err != nil {
		t.Fatal(err)
	}
	// The file is 4 KiB over an inline limit of 1 KiB.
	var notices []string
	tc := &toolCall{AWD: awd, Model: media.WithOptions(newProvider(t, srv), media.Options{InlineLimit: 1024,
		OnNotice: func(s string) { notices = append(notices, s) }})}
	got, err := analyze(t.Context(), tc, "long.mp4", nil)
	if err != nil {
		t.Fatalf("AnalyzeMedia: %v", err)
	}
	if got != "A long video." {
		t.Errorf("AnalyzeMedia = %q", got)
	}
	ups := srv.Uploads()
	if len(ups) != 1 {
		t.Fatalf("%d files uploaded, want 1", len(ups))
	}
	if !bytes.Equal(ups[0].Data, video) || ups[0].MIMEType != "video/mp4" {
		t.Errorf("uploaded %d bytes as %s, want the file's %d bytes as video/mp4", len(ups[0].Data), ups[0].MIMEType, len(video))
	}
	want := []wirePart{{Block: "fileData", MIME: "video/mp4", URI: ups[0].URI}, {Block: "text", Text: media.DefaultPrompt}}
	if diff := cmp.Diff(want, sentParts(t, srv)); diff != "" {
		t.Errorf("user turn on the wire mismatch (-want +got):\n%s", diff)
	}
	// The fake answers PROCESSING first: the request must have waited for
	// a poll that said ACTIVE.
	var polls int
	for _, r := range srv.FileRequests() {
		if r.Method == "GET" {
			polls++
		}
	}
	if polls == 0 {
		t.Errorf("the file was used without waiting for it to be ACTIVE (Files API requests: %v)", srv.FileRequests())
	}
	// The answer is in: the upload is deleted, and -v says so.
	if !ups[0].Deleted {
		t.Error("the upload was not deleted")
	}
	if want := []string{"deleted the upload of long.mp4 (files/f1)"}; !slices.Equal(notices, want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
}

// TestUploadsAreDeletedHoweverTheCallEnds: an upload is deleted when the
// model fails or the call is interrupted too; a deletion that fails is a
// warning, never the call's failure.
func TestUploadsAreDeletedHoweverTheCallEnds(t *testing.T) {
	t.Parallel()
	_, _, _, _, mp4 := wireFixtures(t)
	video := append(append([]byte{}, mp4...), bytes.Repeat([]byte{0x42}, 4096)...)
	for _, tt := range []struct {
		name        string
		reply       llmtest.Reply
		interrupt   bool
		deleteError string
		wantErr     string
		deleted     bool
		warning     string
	}{
		{name: "the model fails", reply: llmtest.Reply{Status: 400, Error: "video could not be decoded"},
			wantErr: "video could not be decoded", deleted: true},
		{name: "interrupted", reply: llmtest.Reply{Delay: llmtest.Duration(time.Hour)}, interrupt: true,
			wantErr: "context canceled", deleted: true},
		{name: "the deletion fails", reply: llmtest.Reply{Text: "A long video."}, deleteError: "no right to delete",
			warning: "could not delete the upload of long.mp4 (files/f1): delete files/f1: gemini API error 403 PERMISSION_DENIED: no right to delete; the provider deletes it in time (Gemini: within 48 hours)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Gemini, wireKey, tt.reply)
			defer srv.Close()
			srv.SetDeleteError(tt.deleteError)
			awd := t.TempDir()
			if err := os.WriteFile(filepath.Join(awd, "long.mp4"), video, 0o644); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			tc := &toolCall{AWD: awd, Model: media.WithOptions(newProvider(t, srv), media.Options{InlineLimit: 1024,
				OnWarning: func(s string) { warnings = append(warnings, s) }})}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.interrupt {
				go func() {
					if srv.WaitQuiet(ctx.Done(), 0) {
						cancel()
					}
				}()
			}
			got, err := analyze(ctx, tc, "long.mp4", nil)
			switch {
			case tt.wantErr == "" && (err != nil || got != "A long video."):
				t.Fatalf("AnalyzeMedia = %q, %v; want the answer", got, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("AnalyzeMedia error %v, want %q", err, tt.wantErr)
			}
			if ups := srv.Uploads(); len(ups) != 1 || ups[0].Deleted != tt.deleted {
				t.Errorf("uploads %+v, want one, deleted %v", ups, tt.deleted)
			}
			var want []string
			if tt.warning != "" {
				want = []string{tt.warning}
			}
			if !slices.Equal(warnings, want) {
				t.Errorf("warnings %q, want %q", warnings, want)
			}
		})
	}
}

func TestAnalyzeMediaProviderErrors(t *testing.T) {
	t.Parallel()
	pngData, _, _, _, _ := wireFixtures(t)
	for _, p := range []llmtest.Provider{llmtest.Gemini, llmtest.Claude} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(p, wireKey, llmtest.Reply{Status: 400, Error: "image could not be decoded"})
			defer srv.Close()
			awd := t.TempDir()
			if err := os.WriteFile(filepath.Join(awd, "a.png"), pngData, 0o644); err != nil {
				t.Fatal(err)
			}
			tc := &toolCall{AWD: awd, Model: newProvider(t, srv)}
			_, err := analyze(t.Context(), tc, "a.png", nil)
			want := fmt.Sprintf("ask %s-test about a.png: ", p)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "image could not be decoded") {
				t.Fatalf("AnalyzeMedia = %v, want an error starting %q with the provider's message", err, want)
			}
			if toolspec.IsInvalidArgs(err) {
				t.Errorf("a provider's refusal is the tool's error, not invalid_args: %v", err)
			}
		})
	}
}

// TestUploadOfAShrinkingFile: a file that shrinks between its check and
// the end of its upload is not sent cut; the upload fails saying why.
func TestUploadOfAShrinkingFile(t *testing.T) {
	t.Parallel()
	_, _, _, _, mp4 := wireFixtures(t)
	video := append(append([]byte{}, mp4...), bytes.Repeat([]byte{0x42}, 4096)...)
	srv := llmtest.NewServer(llmtest.Gemini, wireKey, llmtest.Reply{Text: "never"})
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "long.mp4")
	if err := os.WriteFile(path, video, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := media.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := media.CapabilityOf("gemini", media.Options{InlineLimit: 1024})
	if err != nil {
		t.Fatal(err)
	}
	a, err := media.Prepare(f, "long.mp4", c, 10)
	if err != nil || a.Route != media.Upload {
		t.Fatalf("Prepare: %+v, %v; want an upload", a, err)
	}
	if err := os.Truncate(path, 1000); err != nil {
		t.Fatal(err)
	}
	_, err = media.Ask(t.Context(), newProvider(t, srv), a, "what?")
	if err == nil || !strings.Contains(err.Error(), "long.mp4 shrank from 4") || !strings.Contains(err.Error(), "to 1000 bytes while it was uploaded") {
		t.Fatalf("error %v, want the shrink told", err)
	}
	for _, r := range srv.FileRequests() {
		if strings.Contains(r.Command, "finalize") {
			t.Errorf("a cut upload was finalized: %+v", r)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// TestHundredPagesGoToClaude: a PDF at the limit goes, and the fake (which
// refuses what Claude refuses) takes it.
func TestHundredPagesGoToClaude(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Claude, wireKey, llmtest.Reply{Text: "A long read."})
	defer srv.Close()
	awd := t.TempDir()
	if err := os.WriteFile(filepath.Join(awd, "book.pdf"), media.PagedPDF(100, false), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := analyze(t.Context(), &toolCall{AWD: awd, Model: newProvider(t, srv)}, "book.pdf", nil)
	if err != nil || got != "A long read." {
		t.Fatalf("AnalyzeMedia = %q, %v", got, err)
	}
}

// TestUTF16TextGoesAsUTF8: a UTF-16 text file (with its byte order mark)
// reaches the model as the text it holds, not as mojibake.
func TestUTF16TextGoesAsUTF8(t *testing.T) {
	t.Parallel()
	const text = "Grüße, 日本 — 𝄞\n"
	units := utf16.Encode([]rune(text))
	le, be := []byte{0xFF, 0xFE}, []byte{0xFE, 0xFF}
	for _, u := range units {
		le = append(le, byte(u), byte(u>>8))
		be = append(be, byte(u>>8), byte(u))
	}
	for _, tt := range []struct {
		provider llmtest.Provider
		data     []byte
		block    string
	}{
		{llmtest.Claude, le, "document"},
		{llmtest.Claude, be, "document"},
		{llmtest.Gemini, le, "inlineData"},
	} {
		srv := llmtest.NewServer(tt.provider, wireKey, llmtest.Reply{Text: "A greeting."})
		awd := t.TempDir()
		if err := os.WriteFile(filepath.Join(awd, "note.txt"), tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := analyze(t.Context(), &toolCall{AWD: awd, Model: newProvider(t, srv)}, "note.txt", nil); err != nil {
			t.Fatalf("%s: %v", tt.provider, err)
		}
		parts := sentParts(t, srv)
		if len(parts) != 2 || parts[0].Block != tt.block || string(parts[0].Data) != text || parts[0].MIME != "text/plain" {
			t.Errorf("%s: sent %+v, want the text as UTF-8", tt.provider, parts)
		}
		srv.Close()
	}
}

// encodeText is s in enc.
func encodeText(t *testing.T, enc encoding.Encoding, s string) string {
	t.Helper()
	out, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTextNotUTF8: text in a charset mimetype names (Latin-1) reaches the
// model as the letters it holds, in UTF-8; text in none it names (valid
// UTF-8 in the first bytes it reads and a stray byte further on, Windows
// quotes), or that mimetype calls Latin-1 but is not (most of its letters
// 8-bit: Cyrillic, Greek, CJK), is refused before anything is sent,
// never sent broken.
func TestTextNotUTF8(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data string
		want string // "" for a refusal
	}{
		{"latin-1", "caf\xe9 au lait, na\xefve\n", "café au lait, naïve\n"},
		{"no charset found", "hello \x93quoted\x94 text\n", ""},
		{"utf-8, then a stray byte", strings.Repeat("é", 3000) + "\xff tail\n", ""},
		// Latin-1 with letters side by side (ção) is still Latin-1.
		{"latin-1 in portuguese", "informa\xe7\xe3o e a\xe7\xf5es do cora\xe7\xe3o\n", "informação e ações do coração\n"},
		// mimetype names iso-8859-1 for any 8-bit text: read so, Korean,
		// Japanese in EUC or Russian in Windows-1251 would reach the
		// model as mojibake.
		{"euc-kr", encodeText(t, korean.EUCKR, "이것은 한국어 텍스트입니다. 파일을 읽어 주세요.\n"), ""},
		{"euc-jp", encodeText(t, japanese.EUCJP, "これは日本語のテキストです。読んでください。\n"), ""},
		{"windows-1251", encodeText(t, charmap.Windows1251, "Привет, это русский текст в файле.\n"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Claude, wireKey, llmtest.Reply{Text: "Read."})
			defer srv.Close()
			awd := t.TempDir()
			if err := os.WriteFile(filepath.Join(awd, "note.txt"), []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := analyze(t.Context(), &toolCall{AWD: awd, Model: newProvider(t, srv)}, "note.txt", nil)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "note.txt: the text is not UTF-8 (byte ") || !toolspec.IsInvalidArgs(err) {
					t.Fatalf("AnalyzeMedia = %v, want it refused, naming the byte", err)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d requests sent, want none", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			parts := sentParts(t, srv)
			if len(parts) != 2 || string(parts[0].Data) != tt.want {
				t.Errorf("sent %+v, want the text as UTF-8", parts)
			}
		})
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
		return media.AnalyzeMedia(ctx, nil, path, prompt)
	}
	ctx = toolset.WithEnv(ctx, &toolset.Env{Model: c.Model})
	return media.AnalyzeMedia(ctx, &registry.ToolContext{AWD: c.AWD, Staging: c.Staging}, path, prompt)
}
