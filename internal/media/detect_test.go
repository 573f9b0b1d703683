package media

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
)

func TestDetectType(t *testing.T) {
	t.Parallel()
	webp := append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 32)...)
	ogg := append([]byte("OggS\x00\x02"), make([]byte, 22)...)
	ogg = append(ogg, []byte("\x01vorbis\x00\x00\x00\x00")...)
	tests := []struct {
		name string
		data []byte
		want Type
	}{
		{"png", pngBytes(t), Type{MIME: "image/png", Detected: "image/png", Kind: llm.ImageBlock}},
		{"jpeg", jpegBytes(t), Type{MIME: "image/jpeg", Detected: "image/jpeg", Kind: llm.ImageBlock}},
		{"gif", gifBytes(t), Type{MIME: "image/gif", Detected: "image/gif", Kind: llm.ImageBlock}},
		{"webp", webp, Type{MIME: "image/webp", Detected: "image/webp", Kind: llm.ImageBlock}},
		{"pdf", pdfBytes(), Type{MIME: "application/pdf", Detected: "application/pdf", Kind: llm.DocumentBlock}},
		{"wav", wavBytes(), Type{MIME: "audio/wav", Detected: "audio/wav", Kind: llm.MediaBlock}},
		{"mp3 named as Gemini names it", mp3Bytes(), Type{MIME: "audio/mp3", Detected: "audio/mpeg", Kind: llm.MediaBlock}},
		{"ogg vorbis", ogg, Type{MIME: "audio/ogg", Detected: "audio/ogg", Kind: llm.MediaBlock}},
		{"flac", append([]byte("fLaC\x00\x00\x00\x22"), make([]byte, 40)...), Type{MIME: "audio/flac", Detected: "audio/flac", Kind: llm.MediaBlock}},
		{"m4a", m4aBytes(), Type{MIME: "audio/aac", Detected: "audio/x-m4a", Kind: llm.MediaBlock}},
		{"mp4", mp4Bytes(t), Type{MIME: "video/mp4", Detected: "video/mp4", Kind: llm.MediaBlock}},
		{"quicktime named as Gemini names it", quickTimeBytes(), Type{MIME: "video/mov", Detected: "video/quicktime", Kind: llm.MediaBlock}},
		{"text without its charset", []byte("hello, world\n"), Type{MIME: "text/plain", Detected: "text/plain", Kind: llm.DocumentBlock, Charset: "utf-8"}},
		{"utf-16 text", []byte("\xff\xfeh\x00i\x00"), Type{MIME: "text/plain", Detected: "text/plain", Kind: llm.DocumentBlock, Charset: "utf-16le"}},
		{"html", []byte("<!DOCTYPE html><html><body>hi</body></html>"), Type{MIME: "text/html", Detected: "text/html", Kind: llm.DocumentBlock, Charset: "utf-8"}},
		{"json goes as plain text", []byte(`{"a": [1, 2, 3]}`), Type{MIME: "text/plain", Detected: "application/json", Kind: llm.DocumentBlock}},
		{"zip is no block", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00"), Type{MIME: "application/zip", Detected: "application/zip"}},
		{"binary is no block", []byte{0, 1, 2, 3, 0xfe, 0xff, 0, 0}, Type{MIME: "application/octet-stream", Detected: "application/octet-stream"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DetectType(tt.data)); diff != "" {
				t.Errorf("DetectType mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDetectType feeds arbitrary bytes to detection: it must never panic,
// and whatever it decides must be internally consistent.
func FuzzDetectType(f *testing.F) {
	for _, seed := range [][]byte{pngBytes(f), wavBytes(), pdfBytes(), mp3Bytes(), quickTimeBytes(), []byte("text"), {}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := DetectType(data)
		if got.MIME == "" || bytes.ContainsAny([]byte(got.MIME), "; ") {
			t.Fatalf("DetectType(%q) = %+v: MIME must be a bare type", data, got)
		}
		switch got.Kind {
		case "", llm.ImageBlock, llm.DocumentBlock, llm.MediaBlock:
		default:
			t.Fatalf("DetectType(%q) = %+v: unknown kind", data, got)
		}
	})
}
