package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm"
)

// fileWait says how Upload waits for an uploaded file to become usable:
// polls that start at first and double up to most, for at most limit.
type fileWait struct {
	first, most, limit time.Duration
}

// defaultFileWait suits video, which Gemini takes seconds to minutes to
// process; images and audio are usually ACTIVE at once.
var defaultFileWait = fileWait{first: 500 * time.Millisecond, most: 5 * time.Second, limit: 10 * time.Minute}

// Upload sends a file through the Gemini Files API (the resumable upload
// protocol the genai SDK speaks) and waits until Gemini has processed
// it, so that the URI it returns can go in a request at once. A file whose
// processing fails, or that is not ready within ten minutes, is an error;
// ctx bounds the whole wait too. name is shown in AI Studio; only its last
// element is sent.
func (p *Provider) Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error) {
	return p.upload(ctx, r, mimeType, name, defaultFileWait)
}

func (p *Provider) upload(ctx context.Context, r io.Reader, mimeType, name string, wait fileWait) (uri string, err error) {
	files := p.client.Files
	cfg := &genai.UploadFileConfig{MIMEType: mimeType, DisplayName: filepath.Base(name)}
	f, err := p.uploadOnce(ctx, r, cfg)
	if err != nil {
		return "", err
	}
	name = f.Name
	defer func() {
		if err != nil {
			// A file that will not be used need not count against the
			// project's quota for the 48 hours Gemini keeps it.
			forget(files, name)
		}
	}()
	deadline := time.Now().Add(wait.limit)
	delay := wait.first
	for {
		switch f.State {
		case genai.FileStateActive:
			if f.URI == "" {
				return "", fmt.Errorf("gemini: file %s is ACTIVE but has no URI", f.Name)
			}
			p.uploads.Store(f.URI, f.Name)
			return f.URI, nil
		case genai.FileStateFailed:
			return "", fmt.Errorf("gemini: processing file %s failed: %s", f.Name, fileStatus(f.Error))
		}
		// PROCESSING, or a state this SDK does not know yet: wait.
		if time.Now().Add(delay).After(deadline) {
			return "", fmt.Errorf("gemini: file %s is still %s after %v", f.Name, stateName(f.State), wait.limit)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, wait.most)
		next, err := files.Get(ctx, f.Name, nil)
		if err != nil {
			return "", fmt.Errorf("check uploaded file %s: %w", f.Name, p.wrap(err))
		}
		f = next
	}
}

// Forget deletes a file Upload sent, by its URI, and returns its name
// in the Files API ("files/abc").
func (p *Provider) Forget(ctx context.Context, uri string) (string, error) {
	v, ok := p.uploads.LoadAndDelete(uri)
	if !ok {
		return "", fmt.Errorf("gemini: no file of this client has the URI %s", uri)
	}
	name := v.(string)
	if _, err := p.client.Files.Delete(ctx, name, nil); err != nil {
		return name, fmt.Errorf("delete %s: %w", name, p.wrap(err))
	}
	return name, nil
}

// uploadOnce runs the SDK's upload. The SDK indexes the final answer's
// "file" member without checking it, so a malformed answer (a proxy's, a
// broken server's) panics inside it; that is an error here, not a crash.
func (p *Provider) uploadOnce(ctx context.Context, r io.Reader, cfg *genai.UploadFileConfig) (f *genai.File, err error) {
	defer func() {
		if v := recover(); v != nil {
			f, err = nil, fmt.Errorf("gemini: upload: malformed answer from the Files API (%v)", v)
		}
	}()
	// The SDK words the failure of the upload's first request without
	// wrapping it: what the Transport refused is noted for it.
	watched, failures := llm.WatchFailures(ctx)
	f, err = p.client.Files.Upload(watched, r, cfg)
	if err != nil {
		if own := failures.Err(); own != nil {
			err = own
		}
		return nil, fmt.Errorf("upload: %w", p.wrap(err))
	}
	if f == nil || f.Name == "" {
		return nil, errors.New("gemini: upload: the Files API named no file")
	}
	return f, nil
}

// forget deletes an uploaded file. It is best effort, and runs even when
// the call's context is done: the file expires anyway.
func forget(files *genai.Files, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	files.Delete(ctx, name, nil)
}

func stateName(s genai.FileState) string {
	if s == "" {
		return string(genai.FileStateUnspecified)
	}
	return string(s)
}

func fileStatus(s *genai.FileStatus) string {
	if s == nil || s.Message == "" {
		return "Gemini gave no reason"
	}
	return s.Message
}
