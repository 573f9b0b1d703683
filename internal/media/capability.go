package media

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
)

// Capability is what one provider's models take. Every provider's entry
// lives in capabilities below, so that a refusal, the help text and the
// tests speak of the same table.
type Capability struct {
	// Provider is the provider's name, as llm.Provider.Name gives it.
	Provider string
	// Types are the MIME types the provider takes, named as Type.MIME
	// names them.
	Types []string
	// MaxImage bounds one image, measured on its base64 encoding as Claude
	// measures it; 0 when only MaxInline applies.
	MaxImage int64
	// MaxInline bounds what one request carries inline: the file's base64
	// encoding and the prompt.
	MaxInline int64
	// MaxUpload bounds a file sent through the provider's Files API; 0
	// when the provider has none and everything travels inline.
	MaxUpload int64
	// MaxPDFPages bounds the pages of a PDF; 0 for no bound.
	MaxPDFPages int
}

// DefaultInlineLimit is where Gemini requests switch from inline data to
// the Files API: the conservative 20 MB that bounded a whole request for
// years. Newer models take more; Options raises it.
const DefaultInlineLimit = 20_000_000

var (
	claudeImages = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}
	openAIImages = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}
	geminiImages = []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}
	geminiAudio  = []string{"audio/wav", "audio/mp3", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
	geminiVideo  = []string{"video/mp4", "video/mpeg", "video/mov", "video/avi", "video/x-flv", "video/mpg", "video/webm", "video/wmv", "video/3gpp"}
	// textDocs are the text types Gemini documents by name.
	textDocs = []string{"text/plain", "text/html", "text/css", "text/csv", "text/xml", "text/md", "text/rtf", "text/javascript", "text/x-python"}
)

// capabilities is the table, keyed by llm.Provider.Name, from the
// providers' documentation: Claude (5 MiB per image on base64, 32 MB per
// request, 100 pages of PDF, no audio or video blocks in the API; text
// goes as a plain-text document), Gemini (the documented types,
// inline up to a policy limit, 2 GB per uploaded file) and OpenAI's Chat
// Completions (images as image_url parts, PDF as file parts, up to 100
// pages; everything inline, in a request of at most 25 MiB; no audio
// files as such, no video, no text documents).
var capabilities = map[string]Capability{
	"claude": {
		Types:       slices.Concat(claudeImages, []string{"application/pdf"}, textDocs),
		MaxImage:    5 << 20,
		MaxInline:   32 << 20,
		MaxPDFPages: 100,
	},
	"openai": {
		Types:       slices.Concat(openAIImages, []string{"application/pdf"}),
		MaxInline:   25 << 20,
		MaxPDFPages: 100,
	},
	"gemini": {
		Types:     slices.Concat(geminiImages, geminiAudio, geminiVideo, []string{"application/pdf"}, textDocs),
		MaxInline: DefaultInlineLimit,
		MaxUpload: 2 << 30,
	},
}

// Options tune how files go to a model.
type Options struct {
	// InlineLimit replaces DefaultInlineLimit for providers with a Files
	// API: larger requests upload the file instead. It does not apply to
	// providers without one, whose limits are their API's own. 0 keeps the
	// default.
	InlineLimit int64
	// OnUsage, when set, is told what each question about a file cost
	// (nil when the provider did not say), so that a session's totals
	// count its tools' requests too. It must be safe for concurrent use.
	OnUsage func(*message.Usage)
	// Allow, when set, is asked before each question: an error (a budget
	// spent) fails the call without asking.
	Allow func() error
	// OnNotice, when set, is told in one line what was done on the side
	// (an upload deleted): what -v shows.
	OnNotice func(string)
	// OnWarning, when set, is told in one line of a failure that does not
	// fail the call (an upload that could not be deleted).
	OnWarning func(string)
}

// CapabilityOf returns what the provider named takes, as tuned by opts.
func CapabilityOf(provider string, opts Options) (Capability, error) {
	c, ok := capabilities[provider]
	if !ok {
		known := make([]string, 0, len(capabilities))
		for name := range capabilities {
			known = append(known, name)
		}
		slices.Sort(known)
		return Capability{}, fmt.Errorf("provider %q takes no files; analyze_media works with %s", provider, strings.Join(known, ", "))
	}
	c.Provider = provider
	if opts.InlineLimit > 0 && c.MaxUpload > 0 {
		c.MaxInline = opts.InlineLimit
	}
	return c, nil
}

// Route says how a file travels to a provider.
type Route int

// The routes: inline in the request, or uploaded first and referenced.
const (
	Inline Route = iota
	Upload
)

// RefusedError says that a file cannot go to the chosen provider: its
// type or its size is beyond what the provider takes, or it is no file to
// send at all (a directory, an empty file). It is raised before anything
// is sent.
type RefusedError struct {
	Provider string
	Reason   string
}

func (e *RefusedError) Error() string { return e.Reason }

// Route decides how a file of type t and size bytes goes to the provider
// with a prompt of promptLen bytes beside it, or refuses it with a
// *RefusedError saying why and what the provider takes instead.
func (c Capability) Route(t Type, size int64, promptLen int) (Route, error) {
	provider := c.Provider
	refuse := func(format string, args ...any) (Route, error) {
		return 0, &RefusedError{Provider: provider, Reason: fmt.Sprintf(format, args...)}
	}
	if t.Kind == "" || !slices.Contains(c.Types, t.MIME) {
		return refuse("%s cannot take %s; it takes %s", provider, describe(t), c.takes())
	}
	encoded := int64(base64.StdEncoding.EncodedLen(int(min(size, 1<<40))))
	if t.Kind == llm.ImageBlock && c.MaxImage > 0 && encoded > c.MaxImage {
		return refuse("the image is %s, %s in base64; %s takes at most %s per image", english.Bytes(size), english.Bytes(encoded), provider, english.Bytes(c.MaxImage))
	}
	if encoded+int64(promptLen) <= c.MaxInline {
		return Inline, nil
	}
	if c.MaxUpload == 0 {
		return refuse("the file is %s, %s in base64; %s takes at most %s per request", english.Bytes(size), english.Bytes(encoded), provider, english.Bytes(c.MaxInline))
	}
	if size > c.MaxUpload {
		return refuse("the file is %s; %s takes at most %s per uploaded file", english.Bytes(size), provider, english.Bytes(c.MaxUpload))
	}
	return Upload, nil
}

// takes lists the provider's types for a refusal message, grouped so that
// a user sees at a glance what to send instead.
func (c Capability) takes() string {
	var groups []string
	for _, g := range []struct{ prefix, name string }{
		{"image/", "images"}, {"audio/", "audio"}, {"video/", "video"},
		{"application/pdf", "PDF"}, {"text/", "text"},
	} {
		var subs []string
		for _, m := range c.Types {
			if strings.HasPrefix(m, g.prefix) {
				subs = append(subs, m[strings.IndexByte(m, '/')+1:])
			}
		}
		switch {
		case len(subs) == 0:
		case g.name == "PDF":
			groups = append(groups, "PDF")
		default:
			groups = append(groups, fmt.Sprintf("%s (%s)", g.name, strings.Join(subs, ", ")))
		}
	}
	return strings.Join(groups, ", ")
}

// describe names a type for a refusal: "audio (audio/mp3)".
func describe(t Type) string {
	var what string
	switch {
	case t.Kind == "":
		what = "this kind of file"
	case strings.HasPrefix(t.MIME, "image/"):
		what = "this image type"
	case strings.HasPrefix(t.MIME, "audio/"):
		what = "audio"
	case strings.HasPrefix(t.MIME, "video/"):
		what = "video"
	default:
		what = "this document type"
	}
	if t.Detected != "" && t.Detected != t.MIME {
		return fmt.Sprintf("%s (%s, detected as %s)", what, t.MIME, t.Detected)
	}
	return fmt.Sprintf("%s (%s)", what, t.MIME)
}
