package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/registry"
)

// validateOptions are what `kesoku validate` was asked to do.
type validateOptions struct {
	g        *Globals
	Registry *registry.Registry
	Files    []string
	Format   string
}

// newValidateCmd builds `kesoku validate`; tests pass runF to see the
// options the flags made.
func newValidateCmd(g *Globals, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{g: g, Registry: registry.Default}
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check request files against the tools' parameters; run nothing",
		Long: `validate parses each FILE as run would and checks every request against
its tool's parameters: unknown tools, missing, unknown and wrongly typed
arguments, values outside an enum, malformed and duplicate requests. It runs
nothing, and reports every problem of every file at once, one per line on
standard output:

  FILE:LINE:COLUMN: ID: KIND: what is wrong

KIND is the error kind run would record (invalid_request, unknown_tool,
invalid_args). Files are read as run reads them: YAML, JSON or JSON Lines
by extension, "-" for standard input (sniffed, or --format).

EXIT STATUS
  0    every request is valid
  1    at least one request is invalid
  2    bad usage, or a file that cannot be read or parsed (the other files
       are still checked)
  130  interrupted (SIGINT or SIGTERM)`,
		Example: `  kesoku validate testdata/requests.yaml
  kesoku validate batch.jsonl more.yaml && kesoku run batch.jsonl more.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runValidate(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "", "the format of the files: yaml, json or jsonl (default: from the extension; sniffed for -)")
	return c
}

func runValidate(ctx context.Context, o *validateOptions) error {
	format, err := requestFormat(o.Format, o.Files)
	if err != nil {
		return err
	}
	io := o.g.IO
	check := runner.New(o.Registry, runner.Options{}).Checker()
	requests, invalid, files := 0, 0, 0
	var fileErrs []error
	for _, name := range o.Files {
		if ctx.Err() != nil {
			return errInterrupted
		}
		// Each file on its own, so that one that cannot be parsed does not
		// hide the problems of the others.
		f, err := request.Open(name, format, io.In)
		if err != nil {
			fileErrs = append(fileErrs, fileError(err))
			continue
		}
		files++
		for req := range f.Requests() {
			requests++
			p := check.Check(req)
			if p == nil {
				continue
			}
			invalid++
			pos := p.Pos.String()
			if pos == "" {
				pos = f.Name
			}
			if _, err := fmt.Fprintf(io.Out, "%s: %s: %s: %s\n", pos, req.ID, p.Kind, p.Message); err != nil {
				f.Close()
				return fmt.Errorf("write: %w", err)
			}
		}
		if err := f.Err(); err != nil {
			fileErrs = append(fileErrs, err)
		}
		f.Close()
	}
	if !o.g.Quiet {
		switch {
		case invalid == 0:
			fmt.Fprintf(io.Err, "kesoku: %d %s in %d %s: all valid\n", requests, plural(requests, "request", "requests"), files, plural(files, "file", "files"))
		default:
			fmt.Fprintf(io.Err, "kesoku: %d of %d %s invalid\n", invalid, requests, plural(requests, "request", "requests"))
		}
	}
	switch {
	case len(fileErrs) > 0:
		return usageErr(errors.Join(fileErrs...))
	case invalid > 0:
		return errFailures
	}
	return nil
}
