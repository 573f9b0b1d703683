package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// analyzeOptions are what `kesoku analyze` was asked to do.
type analyzeOptions struct {
	g           *globals
	model       provider.Config
	JSON        bool
	InlineLimit sizeValue
	cassette    cassetteFlags

	Path, Prompt string
}

// newAnalyzeCmd builds `kesoku analyze`; tests pass runF to see the
// options the flags and arguments made.
func newAnalyzeCmd(g *globals, runF func(context.Context, *analyzeOptions) error) *cobra.Command {
	opts := &analyzeOptions{g: g, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "analyze PATH [PROMPT]",
		Short: "Ask a multimodal model about an image, audio, video or PDF file",
		Long: `analyze asks a model about one file: the analyze_media tool, from the
command line. The file's type is found from its content, not its name, and
the file goes to the model as a native block: an image, a document (PDF and
text) or media (audio and video). The answer is printed on standard output;
--json prints the Message record instead, with what the question cost
(usage), which -v prints on standard error. PROMPT defaults to "Describe
this file.".

PATH is taken as given, relative to the current directory; only paths that
a model supplies are confined to the working directory. A file the model
cannot take (kesoku help providers says what each takes) is refused before
any request is sent; text goes as UTF-8, converted from UTF-16 and Latin-1.

EXIT STATUS
  0    the model answered
  1    the provider refused the request (its message is shown), the
       model gave no answer, or its answer was cut short (the output
       token limit, a refusal, a safety stop): the partial answer is
       printed, and stderr names the reason
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
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runAnalyze(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the Message record (JSON) instead of the answer")
	registerToolModelFlags(c.Flags(), &opts.model, &opts.InlineLimit)
	opts.cassette.register(c.Flags())
	return seeAlso(c, "providers", "records")
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

func runAnalyze(ctx context.Context, opts *analyzeOptions) error {
	_, env, err := opts.g.env(ctx, opts.cassette.apply(app.Options{Model: opts.model, ModelRequired: true, InlineLimit: int64(opts.InlineLimit)}))
	if err != nil {
		return err
	}
	defer env.Close()
	rm := env.Model
	start := time.Now()
	got, callErr, interrupted := analyze(ctx, opts, env)
	answer := got.Text
	err = callErr
	if opts.g.Verbose && got.Usage != nil {
		tally := &llm.Tally{}
		tally.Add(got.Usage)
		defer fmt.Fprintf(opts.g.IO.Err, "kesoku: %s\n", usageLine(tally))
	}
	if interrupted {
		err = errInterrupted
	}
	if opts.JSON {
		if werr := writeAnalyzeRecord(opts, rm, got, callErr, interrupted, time.Since(start)); werr != nil && err == nil {
			err = werr
		}
	} else if err == nil || (errors.As(err, new(*llm.CutError)) && answer != "") {
		// A partial answer is printed too; the exit status and stderr say
		// it is partial.
		if werr := llm.NewAnswerWriter(opts.g.IO.Out).Answer(answer, false, false); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// analyze checks the file, then asks the model. Everything that can be
// refused is refused before the model's client is even built: exit 2, and
// nothing spent. interrupted says a signal cut the call short.
func analyze(ctx context.Context, opts *analyzeOptions, env *app.Env) (answer media.Answer, err error, interrupted bool) {
	rm := env.Model
	c, err := media.CapabilityOf(rm.Provider(), media.Options{InlineLimit: int64(opts.InlineLimit)})
	if err != nil {
		return answer, usageErr(err), false
	}
	f, err := media.Open(opts.Path)
	if err != nil {
		return answer, usageErr(err), false
	}
	defer f.Close()
	a, err := media.Prepare(f, opts.Path, c, len(opts.Prompt))
	if err != nil {
		return answer, usageErr(err), false
	}
	if opts.g.Verbose {
		fmt.Fprintf(opts.g.IO.Err, "analyze: %s is %s (%s, %d bytes), sent %s to %s\n",
			opts.Path, a.Type.MIME, a.Type.Kind, a.Size, routeName(a.Route), rm.Name())
	} else if a.Route == media.Upload && !opts.g.Quiet && opts.g.IO.ErrTTY {
		fmt.Fprintf(opts.g.IO.Err, "uploading %s (%d bytes) to the %s Files API…\n", opts.Path, a.Size, rm.Provider())
	}

	// The first signal cancels the request, as for kesoku run and session.
	ctx, end := env.WatchSignals(nil).Turn(ctx)
	defer end()
	answer, err = media.Ask(ctx, media.WithOptions(rm.Lazy(), env.MediaOptions(nil)), a, opts.Prompt)
	return answer, err, err != nil && ctx.Err() != nil
}

func routeName(r media.Route) string {
	if r == media.Upload {
		return "through the Files API"
	}
	return "inline"
}

// writeAnalyzeRecord prints the call as kesoku run would have recorded an
// analyze_media request: one Message record, packed by the runner, an
// error record when the call failed.
func writeAnalyzeRecord(opts *analyzeOptions, rm *provider.Model, answer media.Answer, callErr error, interrupted bool, d time.Duration) error {
	if code, _ := exitCode(callErr); code == ExitUsage {
		// What was refused before the model was asked is the file's fault:
		// analyze_media's argument "path".
		callErr = registry.InvalidArg("path", callErr)
	}
	pk := records.Packer{SessionID: message.NewID()}
	rec := pk.Pack(records.Call{Name: "analyze_media"}, records.Outcome{Value: answer.Text, Err: callErr, Cut: interrupted}, d)
	rec.ID = message.NewID()
	rec.Model = rm.Name()
	rec.Usage = answer.Usage
	var cut *llm.CutError
	if errors.As(callErr, &cut) {
		rec.Cut = cut.Reason
	}
	w := records.NewWriter(opts.g.IO.Out)
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Flush()
}
