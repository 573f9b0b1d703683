package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

func init() { extraCommands = append(extraCommands, newAnalyzeCmd) }

// analyzeOptions are what `kesoku analyze` was asked to do.
type analyzeOptions struct {
	g           *Globals
	model       modelFlags
	JSON        bool
	InlineLimit sizeValue

	Path, Prompt string
}

func newAnalyzeCmd(g *Globals) *cobra.Command {
	opts := &analyzeOptions{g: g, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "analyze PATH [PROMPT]",
		Short: "Ask a multimodal model about an image, audio, video or PDF file",
		Long: `analyze asks a model about one file: the analyze_media tool, from the
command line. The file's type is found from its content, not its name, and
the file goes to the model as a native block: an image, a document (PDF and
text) or media (audio and video). The answer is printed on standard output;
--json prints the Message record instead. PROMPT defaults to "Describe this
file.".

PATH is taken as given, relative to the current directory; only paths that
a model supplies are confined to the working directory.

What each provider takes:
  claude  images (JPEG, PNG, GIF, WebP) up to 5 MiB of base64 each, PDF and
          text, up to 32 MiB per request; no audio, no video
  gemini  images (PNG, JPEG, WebP, HEIC, HEIF), audio (WAV, MP3, AIFF, AAC,
          OGG, FLAC), video (MP4, MPEG, MOV, AVI, FLV, WebM, WMV, 3GPP), PDF
          and text; inline up to --inline-limit, larger files through the
          Files API (up to 2 GiB), waiting until Gemini has processed them

A file the model cannot take is refused before any request is sent (exit 2).

EXIT STATUS
  0    the model answered
  1    the provider refused the request (its message is shown) or the
       model gave no answer
  2    bad usage: no model, no key, a file that cannot be read, or a type
       or size the model cannot take; nothing was sent
  130  interrupted (SIGINT or SIGTERM)`,
		Example: `  kesoku analyze photo.png "what is in this picture?" --model claude-sonnet-4-5
  kesoku analyze talk.mp3 "summarise the talk" --model gemini-2.5-flash
  kesoku analyze report.pdf --model gemini-2.5-flash --json | jq .content`,
		Args: analyzeArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path, opts.Prompt = args[0], media.DefaultPrompt
			if len(args) == 2 && args[1] != "" {
				opts.Prompt = args[1]
			}
			return runAnalyze(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the Message record (JSON) instead of the answer")
	registerToolModelFlags(c.Flags(), &opts.model, &opts.InlineLimit)
	return c
}

// analyzeArgs checks analyze's arguments, saying what to do about the
// usual mistake: a prompt of several words left unquoted.
func analyzeArgs(_ *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return errors.New("analyze needs the PATH of a file: kesoku analyze PATH [PROMPT] --model MODEL")
	case len(args) > 2:
		return fmt.Errorf("analyze takes a PATH and one PROMPT, not %d arguments: quote a prompt of several words, as in kesoku analyze %s %q",
			len(args), args[0], strings.Join(args[1:], " "))
	}
	return nil
}

// registerToolModelFlags adds the flags that choose the model tools ask
// (analyze_media), and how files go to it: kesoku analyze and kesoku run.
func registerToolModelFlags(fs *pflag.FlagSet, m *modelFlags, inlineLimit *sizeValue) {
	m.register(fs)
	fs.Var(inlineLimit, "inline-limit", "the largest Gemini request that carries a file inline (20MB, 64MiB); larger files go through the Files API")
}

// resolveToolModel resolves the model of kesoku run's --model, which is
// optional there: without it, tools run with no model, and analyze_media
// says it needs one. The other model flags mean nothing without it.
func resolveToolModel(m *modelFlags) (*resolvedModel, error) {
	if m.Model == "" {
		if m.Provider != "" || m.BaseURL != "" || m.MaxTokens != 0 {
			return nil, usageErrf("--provider, --base-url and --max-tokens choose how to reach --model: give --model too")
		}
		return nil, nil
	}
	return m.resolve()
}

// buildToolModel is the resolved model as tools see it: the provider
// carrying the media options, so that analyze_media follows
// --inline-limit. Its SDK client is built when a tool first asks the
// model, not before: a run whose requests never do pays nothing for it.
// No model is nil.
func buildToolModel(r *resolvedModel, inlineLimit int64) (registry.Model, error) {
	if r == nil {
		return nil, nil
	}
	return media.WithOptions(newLazyModel(r), media.Options{InlineLimit: inlineLimit}), nil
}

// lazyModel is a resolved model as a tool asks it: its client is built on
// first use, and what the model says is redacted of the key before the
// tool records it or prints it, as the session does for its own turns.
// What is known from the flags (the provider's name, the model's) needs
// no client.
type lazyModel struct {
	r      *resolvedModel
	redact *llm.Redactor
	once   sync.Once
	p      llm.Provider
	err    error
}

func newLazyModel(r *resolvedModel) *lazyModel {
	return &lazyModel{r: r, redact: llm.NewRedactor(r.key)}
}

func (m *lazyModel) provider() (llm.Provider, error) {
	m.once.Do(func() {
		// Building sends nothing; the client outlives the call that
		// needed it first, so it is not built under that call's context.
		m.p, m.err = m.r.build(context.Background())
	})
	return m.p, m.err
}

func (m *lazyModel) Name() string      { return m.r.provider }
func (m *lazyModel) ModelName() string { return m.r.flags.Model }

func (m *lazyModel) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	p, err := m.provider()
	if err != nil {
		return nil, err
	}
	onText, flush := m.redact.Stream(onText)
	resp, err := p.Generate(ctx, req, onText)
	flush()
	if err != nil {
		return nil, m.redact.Error(err)
	}
	for i := range resp.Message.Parts {
		resp.Message.Parts[i].Text = m.redact.String(resp.Message.Parts[i].Text)
	}
	return resp, nil
}

// Upload hands the file to the provider's Files API; media routes a file
// there only for a provider that has one.
func (m *lazyModel) Upload(ctx context.Context, r io.Reader, mimeType, name string) (string, error) {
	p, err := m.provider()
	if err != nil {
		return "", err
	}
	up, ok := p.(media.Uploader)
	if !ok {
		return "", fmt.Errorf("provider %s cannot take uploaded files", p.Name())
	}
	return up.Upload(ctx, r, mimeType, name)
}

func runAnalyze(ctx context.Context, opts *analyzeOptions) error {
	rm, err := opts.model.resolve()
	if err != nil {
		return err
	}
	start := time.Now()
	answer, err := analyze(ctx, opts, rm)
	if opts.JSON {
		if werr := writeAnalyzeRecord(opts, rm, answer, err, time.Since(start)); werr != nil && err == nil {
			err = werr
		}
	} else if err == nil {
		if !strings.HasSuffix(answer, "\n") {
			answer += "\n"
		}
		_, err = fmt.Fprint(opts.g.IO.Out, answer)
	}
	return err
}

// analyze checks the file, then asks the model. Everything that can be
// refused is refused before the model's client is even built: exit 2, and
// nothing spent.
func analyze(ctx context.Context, opts *analyzeOptions, rm *resolvedModel) (string, error) {
	c, err := media.CapabilityOf(rm.provider, media.Options{InlineLimit: int64(opts.InlineLimit)})
	if err != nil {
		return "", usageErr(err)
	}
	f, err := os.Open(opts.Path)
	if err != nil {
		return "", usageErr(err)
	}
	defer f.Close()
	a, err := media.Prepare(f, opts.Path, c, len(opts.Prompt))
	if err != nil {
		return "", usageErr(err)
	}
	if opts.g.Verbose {
		fmt.Fprintf(opts.g.IO.Err, "analyze: %s is %s (%s, %d bytes), sent %s to %s\n",
			opts.Path, a.Type.MIME, a.Type.Kind, a.Size, routeName(a.Route), rm.flags.Model)
	} else if a.Route == media.Upload && !opts.g.Quiet && opts.g.IO.ErrTTY {
		fmt.Fprintf(opts.g.IO.Err, "uploading %s (%d bytes) to the %s Files API…\n", opts.Path, a.Size, rm.provider)
	}

	// The first signal cancels the request, as for kesoku run and session.
	ctx, ir := watchSignals(ctx)
	defer ir.stop()
	answer, err := media.Ask(ctx, newLazyModel(rm), a, opts.Prompt)
	if err != nil && ctx.Err() != nil {
		return "", errInterrupted
	}
	return answer, err
}

func routeName(r media.Route) string {
	if r == media.Upload {
		return "through the Files API"
	}
	return "inline"
}

// writeAnalyzeRecord prints the call as `kesoku run` would have recorded
// an analyze_media request: one Message record, an error record when the
// call failed.
func writeAnalyzeRecord(opts *analyzeOptions, rm *resolvedModel, answer string, callErr error, d time.Duration) error {
	ms := d.Milliseconds()
	rec := &message.Record{
		ID:         message.NewID(),
		SessionID:  message.NewID(),
		Role:       message.RoleTool,
		Type:       message.TypeToolResult,
		Status:     message.StatusResponded,
		Name:       "analyze_media",
		CreatedAt:  time.Now().UTC(),
		DurationMS: &ms,
		Model:      rm.flags.Model,
	}
	var ee *exitError
	switch {
	case callErr == nil:
		content, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		rec.Content = content
	case errors.Is(callErr, errInterrupted):
		rec.Status, rec.IsError = message.StatusAborted, true
		rec.Error = &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted"}
	case errors.As(callErr, &ee) && ee.code == ExitUsage:
		rec.IsError = true
		rec.Error = &message.ErrorInfo{Kind: message.KindInvalidArgs, Message: callErr.Error()}
	default:
		rec.IsError = true
		rec.Error = &message.ErrorInfo{Kind: message.KindToolError, Message: callErr.Error()}
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = opts.g.IO.Out.Write(append(line, '\n'))
	return err
}
