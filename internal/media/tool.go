package media

import (
	"context"
	"errors"
	"os"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

//go:generate go run -tags kesoku_nogen github.com/kesoku/kesoku gen .

// AnalyzeMedia asks the session's multimodal model about an image, audio,
// video or PDF file.
//
// The file's type is found from its content, not its name. Audio and
// video need a Gemini model; Claude takes images, PDF and text; OpenAI
// images and PDF.
//
// Args:
//
//	path: The file, relative to the working directory or staging, or an absolute path inside them.
//	prompt: What to ask about the file. Defaults to "Describe this file.".
//
//kesoku:tool
func AnalyzeMedia(ctx context.Context, tc *registry.ToolContext, path string, prompt *string) (string, error) {
	model := toolset.EnvOf(ctx).Model
	if tc == nil || model == nil {
		return "", errors.New("analyze_media needs a model, and this command was given none")
	}
	p, ok := model.(llm.Provider)
	if !ok {
		return "", errors.New("analyze_media needs a model it can ask; the active model is not one")
	}
	q := ""
	if prompt != nil {
		q = *prompt
	}
	q = Prompt(q)
	c, err := CapabilityOf(p.Name(), OptionsOf(model))
	if err != nil {
		return "", err
	}
	f, err := OpenConfined(tc.AWD, tc.Staging, path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	a, err := Prepare(f, path, c, len(q))
	var refused *RefusedError
	if errors.As(err, &refused) {
		return "", registry.InvalidArg("path", err)
	}
	if err != nil {
		return "", err
	}
	if allow := OptionsOf(model).Allow; allow != nil {
		if err := allow(); err != nil {
			return "", err
		}
	}
	answer, err := Ask(ctx, p, a, q)
	if on := OptionsOf(model).OnUsage; on != nil && (answer.Usage != nil || err == nil) {
		on(answer.Usage)
	}
	return answer.Text, err
}

// Prompt is the question analyze_media asks: prompt, or DefaultPrompt
// when it is empty.
func Prompt(prompt string) string {
	if prompt == "" {
		return DefaultPrompt
	}
	return prompt
}

// OpenConfined opens a path a model supplied, confined to the AWD and
// staging. A path that leads out is the model's invalid
// argument; a missing file is a failure of the call, as for the file
// tools, so that the two kinds of mistake read the same in records.
func OpenConfined(awd, staging, path string) (*os.File, error) {
	ws, err := workspace.New(awd, staging)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	f, err := ws.Open(path)
	if workspace.IsRefusal(err) {
		return nil, registry.InvalidArg("path", err)
	}
	return f, err
}

// OptionsOf returns the media options a model carries, or the defaults.
// A model carries them when the command line tuned them
// (--inline-limit): see WithOptions.
func OptionsOf(m toolset.Model) Options {
	if o, ok := m.(interface{ MediaOptions() Options }); ok {
		return o.MediaOptions()
	}
	return Options{}
}

// WithOptions returns p carrying opts, so that analyze_media calls that
// have it as their active model follow them. The result is an Uploader
// when p is one.
func WithOptions(p llm.Provider, opts Options) llm.Provider {
	t := &tunedProvider{Provider: p, opts: opts}
	if u, ok := p.(Uploader); ok {
		return &tunedUploader{tunedProvider: t, Uploader: u}
	}
	return t
}

type tunedProvider struct {
	llm.Provider
	opts Options
}

func (t *tunedProvider) MediaOptions() Options { return t.opts }

type tunedUploader struct {
	*tunedProvider
	Uploader
}
