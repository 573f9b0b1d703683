package media

import (
	"mime"
	"slices"
	"strings"

	"github.com/gabriel-vasile/mimetype"

	"github.com/kesoku/kesoku/internal/llm"
)

// Type is what a file is, found from its content and named as the
// providers name it.
type Type struct {
	// MIME is the type as the providers expect it: "audio/mp3", not the
	// "audio/mpeg" that mimetype reports; no parameters.
	MIME string
	// Detected is what mimetype reported, parameters stripped, for messages
	// that explain a refusal.
	Detected string
	// Kind is the block the file travels in; "" for a type no provider
	// takes (an executable, a zip archive).
	Kind llm.BlockKind
	// Charset is the encoding of a text file, as mimetype found it from a
	// byte order mark or the content ("utf-16le"); "" when it said none.
	Charset string
}

// sniffLen is how much of a file detection reads: mimetype's own limit.
const sniffLen = 4096

// providerNames maps mimetype's names to the ones the providers document.
// Claude and Gemini agree on every name they
// share (image/jpeg, application/pdf), so one table serves both.
var providerNames = map[string]string{
	"audio/mpeg":      "audio/mp3",
	"video/quicktime": "video/mov",
	"video/x-msvideo": "video/avi",
	"video/x-ms-asf":  "video/wmv",
	"video/3gpp2":     "video/3gpp",
	"video/x-m4v":     "video/mp4",
	// An APNG is a PNG whose first frame any PNG reader shows.
	"image/apng": "image/png",
	// An Ogg stream that mimetype could place as neither Vorbis/Opus audio
	// nor Theora video is, in practice, audio (Speex, FLAC in Ogg).
	"application/ogg": "audio/ogg",
	// M4A is AAC in an MP4 container. Gemini lists no name for the
	// container, but decodes it by content; audio/aac routes it to the
	// audio pipeline. Refusing it would refuse most phone voice memos.
	"audio/x-m4a": "audio/aac",
	"audio/mp4":   "audio/aac",
}

// DetectType finds a file's type from its first bytes (at most the first
// 4 KiB are looked at). The file's name plays no part: a PNG called
// notes.txt is a PNG.
func DetectType(head []byte) Type {
	m := mimetype.Detect(head)
	detected := bare(m.String())
	t := Type{MIME: detected, Detected: detected}
	if _, params, err := mime.ParseMediaType(m.String()); err == nil {
		t.Charset = strings.ToLower(params["charset"])
	}
	if n, ok := providerNames[detected]; ok {
		t.MIME = n
	}
	switch {
	case t.MIME == "application/pdf":
		t.Kind = llm.DocumentBlock
	case isText(m):
		// Text in a type the providers do not name (a shell script, JSON,
		// SVG source) goes as text/plain: the model reads it as text either
		// way.
		if !slices.Contains(textDocs, t.MIME) {
			t.MIME = "text/plain"
		}
		t.Kind = llm.DocumentBlock
	case strings.HasPrefix(t.MIME, "image/"):
		t.Kind = llm.ImageBlock
	case strings.HasPrefix(t.MIME, "audio/"), strings.HasPrefix(t.MIME, "video/"):
		t.Kind = llm.MediaBlock
	}
	return t
}

// isText reports whether mimetype placed the file under text/plain in its
// tree: every textual format (JSON, XML, SVG, scripts) descends from it.
func isText(m *mimetype.MIME) bool {
	for ; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

// bare strips parameters: "text/plain; charset=utf-8" → "text/plain".
func bare(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return t
}
