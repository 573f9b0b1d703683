package media

import (
	"errors"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
)

func TestRoute(t *testing.T) {
	t.Parallel()
	png := Type{MIME: "image/png", Detected: "image/png", Kind: llm.ImageBlock}
	heic := Type{MIME: "image/heic", Detected: "image/heic", Kind: llm.ImageBlock}
	pdf := Type{MIME: "application/pdf", Detected: "application/pdf", Kind: llm.DocumentBlock}
	mp3 := Type{MIME: "audio/mp3", Detected: "audio/mpeg", Kind: llm.MediaBlock}
	mp4 := Type{MIME: "video/mp4", Detected: "video/mp4", Kind: llm.MediaBlock}
	text := Type{MIME: "text/plain", Detected: "text/plain", Kind: llm.DocumentBlock}
	zip := Type{MIME: "application/zip", Detected: "application/zip"}
	// 3 bytes become 4 in base64: the largest image Claude takes is
	// 5 MiB of base64, 3,932,160 bytes of file.
	const claudeMaxImage = 5 << 20 / 4 * 3
	tests := []struct {
		name     string
		provider string
		opts     Options
		typ      Type
		size     int64
		prompt   int
		want     Route
		// refused holds words the refusal must contain; nil for no refusal.
		refused []string
	}{
		{name: "claude png inline", provider: "claude", typ: png, size: 1000, want: Inline},
		{name: "claude pdf inline", provider: "claude", typ: pdf, size: 10 << 20, want: Inline},
		{name: "claude image at the limit", provider: "claude", typ: png, size: claudeMaxImage, want: Inline},
		{name: "claude image over the limit", provider: "claude", typ: png, size: claudeMaxImage + 1,
			refused: []string{"5.0 MiB in base64", "claude takes at most 5.0 MiB per image"}},
		{name: "claude audio", provider: "claude", typ: mp3, size: 1000,
			refused: []string{"claude cannot take audio (audio/mp3, detected as audio/mpeg)", "images (jpeg, png, gif, webp), PDF"}},
		{name: "claude video", provider: "claude", typ: mp4, size: 1000, refused: []string{"claude cannot take video (video/mp4)"}},
		{name: "claude text inline", provider: "claude", typ: text, size: 1000, want: Inline},
		{name: "claude heic", provider: "claude", typ: heic, size: 1000, refused: []string{"claude cannot take this image type (image/heic)"}},
		{name: "claude pdf over the request", provider: "claude", typ: pdf, size: 25 << 20,
			refused: []string{"the file is 25.0 MiB", "claude takes at most 32.0 MiB per request"}},
		{name: "claude counts the prompt", provider: "claude", typ: pdf, size: 32 << 20 / 4 * 3, prompt: 1, refused: []string{"per request"}},
		{name: "gemini audio inline", provider: "gemini", typ: mp3, size: 1000, want: Inline},
		{name: "gemini text inline", provider: "gemini", typ: text, size: 1000, want: Inline},
		{name: "gemini heic inline", provider: "gemini", typ: heic, size: 1000, want: Inline},
		{name: "gemini large video uploads", provider: "gemini", typ: mp4, size: 100 << 20, want: Upload},
		{name: "gemini large image uploads", provider: "gemini", typ: png, size: 30 << 20, want: Upload},
		{name: "gemini inline limit counts base64 and prompt", provider: "gemini", typ: mp4, size: 15_000_000, prompt: 1, want: Upload},
		{name: "gemini just under the inline limit", provider: "gemini", typ: mp4, size: 15_000_000, want: Inline},
		{name: "gemini inline limit raised", provider: "gemini", opts: Options{InlineLimit: 100 << 20}, typ: mp4, size: 50 << 20, want: Inline},
		{name: "gemini inline limit lowered", provider: "gemini", opts: Options{InlineLimit: 1000}, typ: mp4, size: 1000, want: Upload},
		{name: "openai png inline", provider: "openai", typ: png, size: 1000, want: Inline},
		{name: "openai pdf inline", provider: "openai", typ: pdf, size: 10 << 20, want: Inline},
		{name: "openai audio", provider: "openai", typ: mp3, size: 1000,
			refused: []string{"openai cannot take audio (audio/mp3, detected as audio/mpeg)", "images (png, jpeg, webp, gif), PDF"}},
		{name: "openai text", provider: "openai", typ: text, size: 1000, refused: []string{"openai cannot take this document type (text/plain)"}},
		{name: "openai video", provider: "openai", typ: mp4, size: 1000, refused: []string{"openai cannot take video"}},
		{name: "openai pdf over the request", provider: "openai", typ: pdf, size: 20 << 20,
			refused: []string{"openai takes at most 25.0 MiB per request"}},
		{name: "openai ignores the inline limit", provider: "openai", opts: Options{InlineLimit: 100 << 20}, typ: pdf, size: 30 << 20, refused: []string{"per request"}},
		{name: "claude ignores the inline limit", provider: "claude", opts: Options{InlineLimit: 100 << 20}, typ: pdf, size: 30 << 20, refused: []string{"per request"}},
		{name: "gemini over the upload limit", provider: "gemini", typ: mp4, size: 3 << 30,
			refused: []string{"the file is 3.0 GiB", "gemini takes at most 2.0 GiB per uploaded file"}},
		{name: "gemini zip", provider: "gemini", typ: zip, size: 10,
			refused: []string{"gemini cannot take this kind of file (application/zip)", "audio (wav, mp3, aiff, aac, ogg, flac)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := CapabilityOf(tt.provider, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Route(tt.typ, tt.size, tt.prompt)
			if tt.refused == nil {
				if err != nil {
					t.Fatalf("Route: %v", err)
				}
				if got != tt.want {
					t.Errorf("Route = %v, want %v", got, tt.want)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Route = %v, %v; want a *RefusedError", got, err)
			}
			if refused.Provider != tt.provider {
				t.Errorf("refusal names provider %q, want %q", refused.Provider, tt.provider)
			}
			for _, w := range tt.refused {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestCapabilityOfUnknownProvider(t *testing.T) {
	t.Parallel()
	_, err := CapabilityOf("mistral", Options{})
	if err == nil || !strings.Contains(err.Error(), `provider "mistral" takes no files; analyze_media works with claude, gemini, openai`) {
		t.Errorf("CapabilityOf(mistral) = %v", err)
	}
}

// TestCapabilityTypesHaveKinds keeps the table and detection in step: a
// type a provider takes must be one DetectType can produce with a block.
func TestCapabilityTypesHaveKinds(t *testing.T) {
	t.Parallel()
	for name, c := range capabilities {
		for _, m := range c.Types {
			switch {
			case m == "application/pdf", strings.HasPrefix(m, "text/"),
				strings.HasPrefix(m, "image/"), strings.HasPrefix(m, "audio/"), strings.HasPrefix(m, "video/"):
			default:
				t.Errorf("%s takes %s, which no block carries", name, m)
			}
		}
	}
}
