// Package media owns kesoku's multimodal path: resolving a file a model
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
	"os"
	"strings"

	"github.com/kesoku/kesoku/internal/llm"
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
}

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
		return nil, &RefusedError{Provider: c.Provider, Reason: name + " is not a regular file"}
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
	return a, nil
}

// Ask sends the attachment and the prompt to the model and returns its
// answer. A file routed for upload goes through the provider's Uploader
// first. The file comes before the prompt, as both providers advise.
func Ask(ctx context.Context, p llm.Provider, a *Attachment, prompt string) (string, error) {
	if p.Name() != a.provider {
		// Prepare checked the file against another provider's limits.
		return "", fmt.Errorf("%s was checked for %s, not %s", a.Name, a.provider, p.Name())
	}
	blob := &llm.Blob{Kind: a.Type.Kind, MIMEType: a.Type.MIME, Name: a.Name}
	if a.Route == Upload {
		up, ok := p.(Uploader)
		if !ok {
			return "", fmt.Errorf("upload %s: provider %s cannot take uploaded files", a.Name, p.Name())
		}
		uri, err := up.Upload(ctx, io.NewSectionReader(a.file, 0, a.Size), a.Type.MIME, a.Name)
		if err != nil {
			return "", fmt.Errorf("upload %s: %w", a.Name, err)
		}
		blob.URI = uri
	} else {
		blob.Data = a.data
	}
	req := &llm.Request{Messages: []llm.Message{{
		Role:  message.RoleUser,
		Parts: []llm.Part{{Blob: blob}, {Text: prompt}},
	}}}
	resp, err := p.Generate(ctx, req, nil)
	if err != nil {
		return "", fmt.Errorf("ask %s about %s: %w", p.ModelName(), a.Name, err)
	}
	answer := llm.AnswerText(resp.Message)
	if resp.Cut != "" {
		return answer, fmt.Errorf("ask %s about %s: %w", p.ModelName(), a.Name, &llm.CutError{Reason: resp.Cut, Answer: answer})
	}
	if strings.TrimSpace(answer) == "" {
		return "", fmt.Errorf("ask %s about %s: the model gave no answer (stop reason %q)", p.ModelName(), a.Name, resp.StopReason)
	}
	return answer, nil
}
