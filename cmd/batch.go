package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/batch"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"
)

// batchMaxResponse bounds one answer of a batch API other than its
// results (which are read a line at a time, within llm.DefaultMaxResults):
// a Gemini batch of inline requests answers them inside the batch, and 20
// MB of requests may get more than any one model's answer. genai decodes
// such an answer at some ten times its size.
const batchMaxResponse = 256 << 20

// newBatchCmd builds `kesoku batch` and its subcommands.
func newBatchCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "batch",
		Short: "Send analyze_media requests to a batch API, at half the price",
		Long: `batch sends the analyze_media requests of a file to a provider's batch API
(Claude's Message Batches, Gemini's Batch Mode), which answers within 24
hours at half the price of the same requests sent one by one (the
providers' own figure for their batch APIs), and writes the answers as
the records kesoku run --model would have written.

  kesoku batch submit FILE --model M      send; prints the state file
  kesoku batch status STATE               where each part stands
  kesoku batch collect STATE -o FILE      write the records (--wait)

A state file (.kesoku/batches/ID.json, or submit's -o) names everything
status and collect need: the provider, the model, the request file and
the provider's batches. It never holds a key: status and collect read the
provider and model from it and the key from the environment, as submit
does, and take the same --base-url.`,
		Args: subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newBatchSubmitCmd(g, nil), newBatchStatusCmd(g, nil), newBatchCollectCmd(g, nil))
	for _, sub := range c.Commands() {
		if !strings.Contains(sub.Long, "EXIT STATUS") {
			sub.Long = longOr(sub) + "\n" + exitStatusHelp
		}
	}
	c.Long += `

EXIT STATUS
  0    help was printed
  2    bad usage`
	return seeAlso(c, "batches")
}

// batchSubmitOptions are what `kesoku batch submit` was asked to do.
type batchSubmitOptions struct {
	g           *globals
	Registry    *registry.Registry
	File        string
	Output      string
	Session     string
	Format      string
	model       provider.Config
	InlineLimit sizeValue
	cassette    cassetteFlags
}

func newBatchSubmitCmd(g *globals, runF func(context.Context, *batchSubmitOptions) error) *cobra.Command {
	opts := &batchSubmitOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "submit FILE --model MODEL",
		Short: "Send the analyze_media requests of a file to a batch API",
		Long: `submit sends every request of FILE to the batch API of --model's provider
and prints the path of the batch's state file on standard output.

FILE is read as kesoku run reads it ("-" for standard input). Every
request must be an analyze_media request that kesoku run would run: any
other, or a file the model cannot take, is refused with its position
before anything is sent, and nothing is sent. Requests go in as many parts
as the provider's limits ask; the state file is written as each part is
accepted, and the same command finishes an interrupted submit.

EXIT STATUS
  0    every request was sent (or had been by an earlier submit)
  1    the provider refused a part, or a part could not be sent; the
       state file holds the parts sent, and the same command sends the
       rest
  2    bad usage: no model or key, a file that cannot be read, a request
       that cannot go in a batch; nothing was sent
  130  interrupted (SIGINT or SIGTERM); the same command goes on`,
		Example: `  kesoku batch submit photos.jsonl --model claude-sonnet-4-5
  state=$(kesoku batch submit photos.yaml --model gemini-2.5-flash -q)
  kesoku batch collect "$state" --wait -o descriptions.jsonl`,
		Args: argSpec{what: "request FILE", min: 1, max: 1, hint: "give - for standard input"}.args,
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchSubmit(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "the state file (default: .kesoku/batches/ID.json in the AWD)")
	f.StringVar(&opts.Session, "session", "", "the session_id of the records (default: the file's, or a new one)")
	checkedVar(f, &opts.Format, "format", "", "FILE's format: yaml, json or jsonl", checkRequestFormat)
	registerToolModelFlags(f, &opts.model, &opts.InlineLimit)
	opts.cassette.register(f)
	return seeAlso(c, "batches", "requests")
}

func runBatchSubmit(ctx context.Context, o *batchSubmitOptions) error {
	g := o.g
	format, err := requestFormat(o.Format, []string{o.File})
	if err != nil {
		return err
	}
	o.model.MaxResponse = batchMaxResponse
	ctx, env, err := g.env(ctx, o.cassette.apply(app.Options{Model: o.model, ModelRequired: true, OneTurn: true}))
	if err != nil {
		return err
	}
	defer env.Close()
	rm := env.Model
	g.IO.noteReading([]string{o.File}, g.Quiet)
	res, err := batch.Submit(ctx, batch.SubmitOptions{
		Registry: o.Registry, File: o.File, Format: format, Stdin: g.IO.In,
		StatePath: o.Output, AWD: g.AWD, Staging: g.StagingDir(),
		Provider: rm.Provider(), Model: rm.Name(), Session: o.Session,
		Media:   media.Options{InlineLimit: int64(o.InlineLimit)},
		Connect: func(ctx context.Context) (llm.Batcher, error) { return connectBatcher(ctx, rm) },
		Abandon: env.Interrupts.EndGrace(),
		Notify:  g.notice,
	})
	if err != nil {
		return batchError(ctx, err, "submit stopped: the same command sends the rest")
	}
	st := res.State
	if !g.Quiet {
		switch {
		case res.Already:
			fmt.Fprintf(g.IO.Err, "kesoku: the batch was sent whole already (%d %s in %d %s); nothing sent\n",
				st.Requests, english.Plural(int(st.Requests), "request", "requests"), len(st.Parts), english.Plural(len(st.Parts), "part", "parts"))
		default:
			fmt.Fprintf(g.IO.Err, "kesoku: sent %d %s to %s in %d %s; answers come within 24 hours:\n  kesoku batch status %s\n  kesoku batch collect %s -o FILE --wait\n",
				st.Requests, english.Plural(int(st.Requests), "request", "requests"), st.Model, len(st.Parts), english.Plural(len(st.Parts), "part", "parts"), res.Path, res.Path)
		}
	}
	_, err = fmt.Fprintln(g.IO.Out, res.Path)
	return err
}

// notice prints a line of progress on standard error, unless -q.
func (g *globals) notice(msg string) {
	if !g.Quiet {
		fmt.Fprintf(g.IO.Err, "kesoku: %s\n", termtext.Lines(msg))
	}
}

// connectBatcher builds the model's client, which must have a batch API.
func connectBatcher(ctx context.Context, rm *provider.Model) (llm.Batcher, error) {
	p, err := rm.Build(ctx)
	if err != nil {
		return nil, usageErr(err)
	}
	b, ok := p.(llm.Batcher)
	if !ok {
		return nil, usageErrf("provider %s has no batch API kesoku speaks", rm.Provider())
	}
	return b, nil
}

// batchError maps what batch returned to an exit status: what was the
// user's to fix is bad usage, an interrupt is an interrupt, the rest a
// failure (exit 1).
func batchError(ctx context.Context, err error, goOn string) error {
	var refusal *batch.Refusal
	var bad *batch.UsageError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return err
	case ctx.Err() != nil:
		// What failed after the interrupt failed for it.
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %s", goOn)}
	case errors.As(err, &refusal), errors.As(err, &bad):
		return usageErr(err)
	}
	return fmt.Errorf("%w\n%s", err, goOn)
}

// batchStateOptions are the flags of status and collect: the state file,
// and how to reach the provider.
type batchStateOptions struct {
	g        *globals
	State    string
	BaseURL  string
	Idle     time.Duration
	Deadline time.Duration
	Summary  summaryFormat
	cassette cassetteFlags
}

func (o *batchStateOptions) register(c *cobra.Command) {
	baseURLVar(c.Flags(), &o.BaseURL, "the provider's API endpoint, for a proxy (default: the provider's own)")
	durationVar(c.Flags(), &o.Idle, "idle-timeout", llm.DefaultIdleTimeout, time.Millisecond, maxIdleTimeout, "abandon (and retry) a request to the provider that sends nothing for this long")
	apiTimeoutVar(c.Flags(), &o.Deadline)
	registerSummary(c.Flags(), &o.Summary)
	o.cassette.register(c.Flags())
}

// open reads the state file and builds the client of its provider, its
// traffic on env's cassette.
func (o *batchStateOptions) open(ctx context.Context, env *app.Env) (*batch.State, llm.Batcher, error) {
	st, err := batch.Load(o.State)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	cfg := provider.Config{Model: st.Model, Provider: st.Provider, BaseURL: o.BaseURL, IdleTimeout: o.Idle, Deadline: o.Deadline, MaxResponse: batchMaxResponse, Cassette: env.Cassette}
	if !o.g.Quiet {
		cfg.Notices = notice.Func(o.g.tell(), notice.Warning)
	}
	rm, err := resolveModel(cfg)
	if err != nil {
		return nil, nil, err
	}
	b, err := connectBatcher(ctx, rm)
	return st, b, err
}

func newBatchStatusCmd(g *globals, runF func(context.Context, *batchStateOptions) error) *cobra.Command {
	opts := &batchStateOptions{g: g}
	c := &cobra.Command{
		Use:   "status STATE",
		Short: "Say where each part of a batch stands",
		Long: `status asks the provider where each part of the batch of the state file
STATE stands, and says so on standard output: its state, its requests by
outcome (processing, succeeded, errored; Claude counts canceled and
expired ones too), when it was created, and when it expires (Claude ends
a batch after 24 hours; requests not done by then expire). Gemini gives a
batch no end of its own, but deletes the files uploaded for it (media,
the input file of a large part) 48 hours after their upload: status says
when, for a part still in progress; its requests cannot run after.

EXIT STATUS
  0    every part has ended: collect has every answer
  1    the provider could not be asked
  2    bad usage: STATE is no state file, no key
  3    some part is still in progress
  130  interrupted (SIGINT or SIGTERM)`,
		Example: `  kesoku batch status .kesoku/batches/photos-claude-1a2b3c4d.json`,
		Args:    stateArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.State = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchStatus(c.Context(), opts)
		},
	}
	opts.register(c)
	return seeAlso(c, "batches")
}

func runBatchStatus(ctx context.Context, o *batchStateOptions) error {
	ctx, env, err := o.g.env(ctx, o.cassette.apply(app.Options{OneTurn: true}))
	if err != nil {
		return err
	}
	defer env.Close()
	st, b, err := o.open(ctx, env)
	if err != nil {
		return err
	}
	parts, err := batch.Status(ctx, st, b)
	if err != nil {
		return batchError(ctx, err, "nothing changed; ask again")
	}
	batch.Report(o.g.IO.Out, st, parts, time.Now())
	sum := batch.StatusSummary(st, parts)
	o.g.printSummary(o.Summary, &sum)
	if !batch.Ended(parts) || !st.Submitted {
		return errPending
	}
	return nil
}

// batchCollectOptions are what `kesoku batch collect` was asked to do.
type batchCollectOptions struct {
	batchStateOptions
	Registry *registry.Registry
	Output   string
	Wait     bool
	Poll     time.Duration
}

func newBatchCollectCmd(g *globals, runF func(context.Context, *batchCollectOptions) error) *cobra.Command {
	opts := &batchCollectOptions{batchStateOptions: batchStateOptions{g: g}, Registry: registry.Default}
	c := &cobra.Command{
		Use:   "collect STATE [-o FILE]",
		Short: "Write the records of a batch's answers, in request order",
		Long: `collect writes one Message record per request of the batch of the state
file STATE, in request order, as kesoku run --model would have written it:
the answer as content, or an error record (tool_error) with the provider's
reason (an error, a cancel, a batch that expired first).

Records go to standard output, or are appended to the -o file: requests
with a finished record there (an interrupted collect) get none. A part
still in progress stops collect after the records before it, unless
--wait, which looks again after 5s, then longer, up to --poll. Once every
request has its record, the files uploaded for the batch go.

EXIT STATUS
  0    every record was written and succeeded
  1    at least one error record, or the provider could not be asked
  2    bad usage: STATE is no state file, no key, the request file changed
       since submit
  3    a part is still in progress (without --wait): run again later
  130  interrupted (SIGINT or SIGTERM); the same command goes on`,
		Example: `  kesoku batch collect .kesoku/batches/photos-claude-1a2b3c4d.json \
    -o photos.out.jsonl
  kesoku batch collect "$state" --wait -o photos.out.jsonl &&
    jq -r .content photos.out.jsonl`,
		Args: stateArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.State = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchCollect(c.Context(), opts)
		},
	}
	opts.register(c)
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "append the records to `FILE`, not standard output")
	f.BoolVar(&opts.Wait, "wait", false, "wait for parts still in progress")
	durationVar(f, &opts.Poll, "poll", batch.DefaultPoll, 10*time.Millisecond, 24*time.Hour, "with --wait, the longest wait between two looks")
	return seeAlso(c, "batches", "resume")
}

func runBatchCollect(ctx context.Context, o *batchCollectOptions) error {
	g := o.g
	ctx, env, err := g.env(ctx, o.cassette.apply(app.Options{OneTurn: true}))
	if err != nil {
		return err
	}
	defer env.Close()
	st, b, err := o.open(ctx, env)
	if err != nil {
		return err
	}
	if o.Output != "" && o.Output != "-" && workspace.SamePath(o.Output, st.File) {
		return usageErrf("-o %s is the batch's request file: the records would overwrite the requests", o.Output)
	}
	rep, err := app.Collect(ctx, app.CollectOptions{Output: o.Output, Stdout: g.IO.Out, CollectOptions: batch.CollectOptions{
		Registry: o.Registry, State: st, StatePath: o.State, Batcher: b,
		Wait: o.Wait, Poll: o.Poll, Notify: g.notice,
	}})
	if errors.As(err, new(*app.UsageError)) {
		return appErr(err)
	}
	g.printSummary(o.Summary, &rep)
	var pending *batch.PendingError
	switch {
	case errors.As(err, &pending):
		return &exitError{code: ExitPending, err: fmt.Errorf("%w: run again later, or with --wait", err)}
	case err != nil:
		return batchError(ctx, err, "the same command goes on")
	case rep.HasErrors():
		return errFailures
	}
	return nil
}
