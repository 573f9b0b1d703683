// Package media owns kesoku's multimodal path: a file a model names, made
// into a block of a model request.
//
// It resolves a file a model
// names inside the AWD and staging, finding its type from its content,
// checking it against what the chosen provider takes, and turning it into
// the native block (image, document or media) of a model request. The
// analyze_media tool and the `kesoku analyze` command are both built on it.
//
// The work is split in two so that every refusal comes before anything is
// sent: Prepare reads and checks the file and spends nothing; Ask uploads
// it where needed and asks the model.
package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/message"
)

// DefaultPrompt is the question asked when none is given.
const DefaultPrompt = "Describe this file."

// Uploader is a provider that can hold a file too large to travel inline:
// Gemini, through its Files API. The provider implements it; analyze_media
// asserts it when a file must be uploaded.
type Uploader interface {
	// Upload sends the file read from r, of the MIME type given, and
	// returns its URI once the provider can use it in a request (for
	// Gemini, once the file is ACTIVE). name is for display only.
	Upload(ctx context.Context, r io.Reader, mimeType, name string) (uri string, err error)
	// Forget deletes a file Upload sent, by its URI: once the answer is
	// in, it is of no more use, and it would count against the project's
	// quota until the provider drops it (Gemini: after 48 hours). It
	// returns the provider's name of the file, for messages.
	Forget(ctx context.Context, uri string) (name string, err error)
}

// forgetTimeout bounds the deletion of an upload: it runs after the
// answer, or after an interrupt, and must not hold the program long.
const forgetTimeout = 5 * time.Second

// Attachment is a file that has been read, typed and checked against one
// provider, ready to go with a question. An uploaded attachment reads its
// file again in Ask, so the file must stay open until Ask returns.
type Attachment struct {
	// Name is the file's path as given, for messages.
	Name string
	Type Type
	Size int64
	// Route says whether the file goes inline or is uploaded first.
	Route Route

	provider string
	data     []byte   // the whole file, when it goes inline
	file     *os.File // the file to upload, otherwise
}

// Open opens the file at path for Prepare. Anything but a regular file is
// refused before it is opened, with a *RefusedError: opening a FIFO would
// block until a writer came (for ever, from `kesoku analyze`). The open
// itself does not block either, should the path change meanwhile;
// Prepare checks what was opened.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what the user asked for
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

func notRegular(name string, fi os.FileInfo) error {
	kind := "it is " + fi.Mode().Type().String()
	switch t := fi.Mode().Type(); {
	case fi.IsDir():
		kind = "a directory"
	case t&os.ModeNamedPipe != 0:
		kind = "a named pipe"
	case t&os.ModeSocket != 0:
		kind = "a socket"
	case t&os.ModeDevice != 0:
		kind = "a device"
	}
	return &RefusedError{Reason: fmt.Sprintf("%s is not a regular file (%s)", name, kind)}
}

// Prepare reads f (named name in messages), finds its type and decides how
// it goes to the provider c describes, with a prompt of promptLen bytes
// beside it. Nothing is sent. A file that cannot go to the model (not a
// regular file, empty, or of a type or size the provider cannot take) is
// a *RefusedError, the fault of the path given; any other error is a
// failure to read it.
func Prepare(f *os.File, name string, c Capability, promptLen int) (*Attachment, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(name, fi)
	}
	size := fi.Size()
	if size == 0 {
		return nil, &RefusedError{Provider: c.Provider, Reason: name + " is empty"}
	}
	head := make([]byte, min(size, sniffLen))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	t := DetectType(head)
	route, err := c.Route(t, size, promptLen)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	a := &Attachment{Name: name, Type: t, Size: size, Route: route, provider: c.Provider}
	if route == Upload {
		a.file = f
		return a, nil
	}
	// Read exactly the size that was checked: a file that grows meanwhile
	// must not slip past the limit, nor one that shrinks go out padded.
	a.data = make([]byte, size)
	n, err := f.ReadAt(a.data, 0)
	if n < len(a.data) {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("it shrank from %d to %d bytes while being read", size, n)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if t.Kind == llm.DocumentBlock && strings.HasPrefix(t.MIME, "text/") && strings.HasPrefix(t.Charset, "utf-16") {
		// The providers read text as UTF-8: UTF-16 would reach the model
		// as mojibake (Claude's text documents are JSON strings).
		a.data = utf16ToUTF8(a.data, t.Charset == "utf-16be")
		a.Type.Charset = "utf-8"
		if r, err := c.Route(a.Type, int64(len(a.data)), promptLen); err != nil || r != Inline {
			return nil, &RefusedError{Provider: c.Provider, Reason: fmt.Sprintf("%s: as UTF-8 the text is %s, more than %s takes inline", name, english.Bytes(int64(len(a.data))), c.Provider)}
		}
	}
	if t.Kind == llm.DocumentBlock && strings.HasPrefix(t.MIME, "text/") && !utf8.Valid(a.data) {
		text, err := toUTF8(a.data, a.Type.Charset)
		if err != nil {
			return nil, &RefusedError{Provider: c.Provider, Reason: fmt.Sprintf("%s: %v", name, err)}
		}
		a.data, a.Type.Charset = text, "utf-8"
		if r, err := c.Route(a.Type, int64(len(a.data)), promptLen); err != nil || r != Inline {
			return nil, &RefusedError{Provider: c.Provider, Reason: fmt.Sprintf("%s: as UTF-8 the text is %s, more than %s takes inline", name, english.Bytes(int64(len(a.data))), c.Provider)}
		}
	}
	if t.MIME == "application/pdf" && c.MaxPDFPages > 0 {
		if pages := pdfPages(a.data); pages > c.MaxPDFPages {
			return nil, &RefusedError{Provider: c.Provider, Reason: fmt.Sprintf("%s: the PDF has %d pages; %s takes at most %d pages per request", name, pages, c.Provider, c.MaxPDFPages)}
		}
	}
	return a, nil
}

// Answer is the model's answer about a file, and what asking cost.
type Answer struct {
	Text string
	// Usage is what the request cost, nil when the provider did not say.
	Usage *message.Usage
}

// Ask sends the attachment and the prompt to the model and returns its
// answer. A file routed for upload goes through the provider's Uploader
// first. The file comes before the prompt, as both providers advise. A
// cut answer comes back with its partial text and a *llm.CutError.
func Ask(ctx context.Context, p llm.Provider, a *Attachment, prompt string) (Answer, error) {
	if p.Name() != a.provider {
		// Prepare checked the file against another provider's limits.
		return Answer{}, fmt.Errorf("%s was checked for %s, not %s", a.Name, a.provider, p.Name())
	}
	uri, err := UploadAttachment(ctx, p, a)
	if err != nil {
		return Answer{}, err
	}
	if up, ok := p.(Uploader); ok && uri != "" {
		// Deleted once the answer is in, or the question was given up
		// (interrupted, failed): however it ends.
		defer forget(ctx, up, uri, a.Name, OptionsOf(p))
	}
	resp, err := p.Generate(ctx, Question(a, uri, prompt), nil)
	return ReadAnswer(p.ModelName(), a.Name, resp, err)
}

// UploadAttachment sends a file routed for upload through the provider's Uploader
// and returns the URI a request cites it by; a file that goes inline has
// none.
func UploadAttachment(ctx context.Context, p llm.Provider, a *Attachment) (string, error) {
	if a.Route != Upload {
		return "", nil
	}
	// Only the sending half of Uploader: kesoku batch deletes its uploads
	// itself, once the batch is collected.
	up, ok := p.(interface {
		Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error)
	})
	if !ok {
		return "", fmt.Errorf("upload %s: provider %s cannot take uploaded files", a.Name, p.Name())
	}
	r := &sizedReader{r: io.NewSectionReader(a.file, 0, a.Size), size: a.Size, name: a.Name}
	uri, err := up.Upload(ctx, r, a.Type.MIME, a.Name)
	if r.err != nil {
		// The upload failed for it; its own words would be the SDK's.
		return "", fmt.Errorf("upload %s: %w", a.Name, r.err)
	}
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", a.Name, err)
	}
	return uri, nil
}

// Question is the model request that asks prompt about the attachment:
// the file inline, or cited by the URI it was uploaded to, before the
// prompt, as both providers advise. kesoku analyze, analyze_media and
// kesoku batch all ask this.
func Question(a *Attachment, uri, prompt string) *llm.Request {
	blob := &llm.Blob{Kind: a.Type.Kind, MIMEType: a.Type.MIME, Name: a.Name}
	if uri != "" {
		blob.URI = uri
	} else {
		blob.Data = a.data
	}
	return &llm.Request{Messages: []llm.Message{{
		Role:  message.RoleUser,
		Parts: []llm.Part{{Blob: blob}, {Text: prompt}},
	}}}
}

// ReadAnswer is what the model's turn resp (or err, its failure) answers
// to a Question about the file name, asked of model: the text, or an
// error saying why there is none. An answer cut short is its partial
// text with a *llm.CutError.
func ReadAnswer(model, name string, resp *llm.Response, err error) (Answer, error) {
	if err != nil {
		return Answer{}, fmt.Errorf("ask %s about %s: %w", model, name, err)
	}
	answer := Answer{Text: llm.AnswerText(resp.Message), Usage: resp.Usage}
	if resp.Cut != "" {
		return answer, fmt.Errorf("ask %s about %s: %w", model, name, &llm.CutError{Reason: resp.Cut, Answer: answer.Text})
	}
	if strings.TrimSpace(answer.Text) == "" {
		return answer, fmt.Errorf("ask %s about %s: the model gave no answer (stop reason %q)", model, name, resp.StopReason)
	}
	return answer, nil
}

// forget deletes an upload, saying so with -v (OnNotice). A deletion that
// fails is a warning (OnWarning), never the call's failure: the provider
// drops the file in time anyway.
func forget(ctx context.Context, up Uploader, uri, file string, opts Options) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), forgetTimeout)
	defer cancel()
	name, err := up.Forget(ctx, uri)
	if name == "" {
		name = uri
	}
	switch {
	case err != nil && opts.OnWarning != nil:
		opts.OnWarning(fmt.Sprintf("could not delete the upload of %s (%s): %v; the provider deletes it in time (Gemini: within 48 hours)", file, name, err))
	case err == nil && opts.OnNotice != nil:
		opts.OnNotice(fmt.Sprintf("deleted the upload of %s (%s)", file, name))
	}
}

// sizedReader reads the size bytes of a file that Prepare checked, and
// fails when the file ends before: a file that shrinks while it is
// uploaded must not go out cut.
type sizedReader struct {
	r    io.Reader
	size int64
	read int64
	name string
	err  error
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.read += int64(n)
	if errors.Is(err, io.EOF) && s.read < s.size {
		s.err = fmt.Errorf("%s shrank from %d to %d bytes while it was uploaded", s.name, s.size, s.read)
		return n, s.err
	}
	return n, err
}

// toUTF8 is text that is not valid UTF-8 as UTF-8, or an error saying
// why it cannot be: the providers read text as UTF-8, and invalid bytes
// would reach the model as U+FFFD or mojibake. The text is decoded from
// the charset mimetype found in it (iso-8859-1 for 8-bit text, which the
// WHATWG Encoding standard reads as Windows-1252, as browsers do;
// shift_jis, euc-kr, gb18030 and the like), by its WHATWG name. Text it
// found no charset for (UTF-8 at first, a stray byte further on), or
// that it calls Latin-1 but is not (latinLetters), is refused, naming
// the first bad byte.
func toUTF8(data []byte, charset string) ([]byte, error) {
	latin := charset == "iso-8859-1" || charset == "windows-1252"
	if latin && !latinLetters(data) {
		// mimetype names iso-8859-1 for any 8-bit text it cannot place:
		// Russian in Windows-1251 or Korean in EUC-KR, read so, would be
		// mojibake.
		at := slices.IndexFunc(data, func(b byte) bool { return b >= 0x80 })
		return nil, fmt.Errorf("the text is not UTF-8 (byte %#02x at offset %d), and not Latin-1 either: most of its letters are 8-bit bytes (Cyrillic, Greek, a CJK encoding?); convert it first (iconv -f ENCODING -t UTF-8)", data[at], at)
	}
	if enc, err := htmlindex.Get(charset); err == nil && charset != "utf-8" {
		if text, err := enc.NewDecoder().Bytes(data); err == nil && utf8.Valid(text) {
			return text, nil
		}
	}
	at := termtext.InvalidUTF8(string(data))
	return nil, fmt.Errorf("the text is not UTF-8 (byte %#02x at offset %d); convert it first (iconv -t UTF-8)", data[at], at)
}

// latinLetters reports whether 8-bit text reads as a Latin-1 language:
// French, German, Portuguese write mostly ASCII letters and an accented
// one here and there (a few in a hundred), while in Cyrillic, Greek or
// the CJK encodings nearly every letter is a byte above 0x7f.
func latinLetters(data []byte) bool {
	var ascii, high int
	for _, b := range data {
		switch {
		case b >= 0x80:
			high++
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
			ascii++
		}
	}
	return high*3 <= ascii+high
}

// utf16ToUTF8 decodes UTF-16 text (its byte order mark, if any, left
// out) as UTF-8; a lone surrogate becomes U+FFFD, an odd last byte is
// dropped.
func utf16ToUTF8(data []byte, bigEndian bool) []byte {
	if len(data) >= 2 && ((data[0] == 0xFF && data[1] == 0xFE) || (data[0] == 0xFE && data[1] == 0xFF)) {
		data = data[2:]
	}
	units := make([]uint16, len(data)/2)
	for i := range units {
		if bigEndian {
			units[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			units[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return []byte(string(utf16.Decode(units)))
}
