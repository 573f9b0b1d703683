package provider

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/kesoku/kesoku/internal/llm"
)

// Lazy is a model as a tool asks it (analyze_media in kesoku run and
// kesoku analyze): its client is built on first use, so that a run whose
// requests never ask the model pays nothing for it, and what the model
// says is redacted of the key before the tool records it or prints it, as
// the session does for its own turns. What is known without a client (the
// provider's name, the model's) needs none.
type Lazy struct {
	m      *Model
	redact *llm.Redactor
	once   sync.Once
	p      llm.Provider
	err    error
}

// Lazy returns the model as a Lazy provider.
func (m *Model) Lazy() *Lazy { return &Lazy{m: m, redact: m.Redactor()} }

var _ llm.Provider = (*Lazy)(nil)

func (l *Lazy) provider() (llm.Provider, error) {
	l.once.Do(func() {
		// Building sends nothing; the client outlives the call that
		// needed it first, so it is not built under that call's context.
		l.p, l.err = l.m.Build(context.Background())
	})
	return l.p, l.err
}

// Name is the provider's name.
func (l *Lazy) Name() string { return l.m.Provider() }

// ModelName is the model's name as the user gave it.
func (l *Lazy) ModelName() string { return l.m.Name() }

// Generate builds the client if need be, asks the model, and redacts the
// key from what comes back.
func (l *Lazy) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	p, err := l.provider()
	if err != nil {
		return nil, err
	}
	onText, flush := l.redact.Stream(onText)
	resp, err := p.Generate(ctx, req, onText)
	flush()
	if err != nil {
		return nil, l.redact.Error(err)
	}
	for i := range resp.Message.Parts {
		resp.Message.Parts[i].Text = l.redact.String(resp.Message.Parts[i].Text)
	}
	return resp, nil
}

// uploader is a provider with a Files API (media.Uploader).
type uploader interface {
	Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error)
	Forget(ctx context.Context, uri string) (string, error)
}

// Upload hands the file to the provider's Files API; media routes a file
// there only for a provider that has one.
func (l *Lazy) Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error) {
	up, err := l.uploader()
	if err != nil {
		return "", err
	}
	return up.Upload(ctx, r, mimeType, name)
}

// Forget deletes a file Upload sent.
func (l *Lazy) Forget(ctx context.Context, uri string) (string, error) {
	up, err := l.uploader()
	if err != nil {
		return "", err
	}
	name, err := up.Forget(ctx, uri)
	return name, l.redact.Error(err)
}

func (l *Lazy) uploader() (uploader, error) {
	p, err := l.provider()
	if err != nil {
		return nil, err
	}
	up, ok := p.(uploader)
	if !ok {
		return nil, fmt.Errorf("provider %s cannot take uploaded files", p.Name())
	}
	return up, nil
}
