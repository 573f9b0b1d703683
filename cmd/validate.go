package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// validateOptions are what `kesoku validate` was asked to do.
type validateOptions struct {
	g        *globals
	Registry *registry.Registry
	Files    []string
	Format   string
	JSON     bool
	Shard    shardValue
	Summary  summaryFormat
}

// newValidateCmd builds `kesoku validate`; tests pass runF to see the
// options the flags made.
func newValidateCmd(g *globals, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{g: g, Registry: registry.Default}
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check request files against the tools' parameters; run nothing",
		Long: `validate parses each FILE as run would and checks every request against its
tool's parameters: unknown tools, missing, unknown and wrongly typed
arguments, values outside an enum or a tool's bounds, paths outside the
working directory, malformed and duplicate requests. It runs nothing, and
reports every problem of every file at once, one per line on standard
output:

  FILE:LINE:COLUMN: ID: KIND: what is wrong

KIND is the error kind run would record (invalid_request, unknown_tool,
invalid_args). --shard K/N checks only the requests kesoku run --shard K/N
would run, numbered as in the whole run. Files are read as run reads them:
YAML, JSON or JSON Lines by extension, "-" for standard input (sniffed, or
--format); a session transcript's tool_call records are requests, its
other records passed over. A file that cannot be read or parsed is said
on standard error, as is the summary, each line beginning with "kesoku: ".

--json prints one JSON document on standard output instead, and nothing
on standard error: every file, every problem and whether all is valid
(kesoku help ci shows it).

EXIT STATUS
  0    every request is valid
  1    at least one request is invalid
  2    bad usage, or a file that cannot be read or parsed or holds no
       requests (the other files are still checked)
  130  interrupted (SIGINT or SIGTERM)`,
		Example: `  kesoku validate testdata/requests.yaml
  kesoku validate batch.jsonl more.yaml && kesoku run batch.jsonl more.yaml`,
		Args: requestFileArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runValidate(c.Context(), opts)
		},
	}
	checkedVar(c.Flags(), &opts.Format, "format", "", "the files' format: yaml, json or jsonl", checkRequestFormat)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document instead")
	c.Flags().Var(&opts.Shard, "shard", "check only what run --shard K/N runs ("+shardBounds+")")
	registerSummary(c.Flags(), &opts.Summary)
	return seeAlso(c, "requests", "shards", "ci")
}

// validateProblem is one problem in validate's report: a request that run
// would refuse, or a file that could not be read or parsed.
type validateProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	ID      string `json:"id,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
}

// validateFile is one file in validate's report.
type validateFile struct {
	Name     string `json:"name"`
	Requests int    `json:"requests"`
	// Error says why the file could not be read or parsed; its requests
	// before that point are still counted and checked.
	Error *validateProblem `json:"error,omitempty"`
}

// validateReport is what --json prints: one JSON document.
type validateReport struct {
	Valid    bool              `json:"valid"`
	Requests int               `json:"requests"`
	Invalid  int               `json:"invalid"`
	Files    []validateFile    `json:"files"`
	Problems []validateProblem `json:"problems"`
}

func runValidate(ctx context.Context, o *validateOptions) error {
	format, err := requestFormat(o.Format, o.Files)
	if err != nil {
		return err
	}
	io := o.g.IO
	_, env, err := o.g.env(ctx, app.Options{Tools: o.Registry})
	if err != nil {
		return err
	}
	defer env.Close()
	// The runner run would have: what its tools refuse before they run
	// (a path outside the working directory) depends on where.
	ropts := env.RunnerOptions()
	ropts.Shard = request.Shard(o.Shard)
	check := runner.New(env.Tools.Registry, ropts).Checker()
	rep := validateReport{Files: []validateFile{}, Problems: []validateProblem{}}
	unreadable := 0
	var kinds map[message.ErrorKind]int
	io.noteReading(o.Files, o.g.Quiet || o.JSON)
	for _, name := range o.Files {
		if ctx.Err() != nil {
			return errInterrupted
		}
		vf := validateFile{Name: name}
		// Each file on its own, so that one that cannot be parsed does not
		// hide the problems of the others.
		f, err := request.Open(ctx, name, format, io.In)
		if err == nil {
			vf.Name = f.Name
			for req := range f.Requests() {
				p, mine := check.Next(req)
				if !mine {
					continue
				}
				rep.Requests++
				vf.Requests++
				if p == nil {
					continue
				}
				rep.Invalid++
				if kinds == nil {
					kinds = map[message.ErrorKind]int{}
				}
				kinds[p.Kind]++
				vp := validateProblem{File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Col, ID: req.ID, Kind: string(p.Kind), Message: p.Message}
				if vp.File == "" {
					vp.File = f.Name
				}
				if o.JSON {
					rep.Problems = append(rep.Problems, vp)
					continue
				}
				line := fmt.Sprintf("%s: %s: %s: %s", positionOr(p.Pos, f.Name), req.ID, p.Kind, p.Message)
				if _, err := fmt.Fprintln(io.Out, termtext.Escape(line)); err != nil {
					f.Close()
					return fmt.Errorf("write: %w", err)
				}
			}
			err = f.Err()
			f.Close()
		}
		if err != nil {
			unreadable++
			vf.Error = fileProblem(name, err)
			if !o.JSON {
				fmt.Fprintf(io.Err, "kesoku: %s\n", termtext.Lines(fileError(err).Error()))
			}
		}
		rep.Files = append(rep.Files, vf)
	}
	rep.Valid = rep.Invalid == 0 && unreadable == 0
	if o.JSON {
		data, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		if _, err := io.Out.Write(append(data, '\n')); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if !o.JSON || o.Summary == summaryJSON {
		o.g.printSummary(o.Summary, &records.Summary{Command: records.CommandValidate, Total: rep.Requests,
			Succeeded: rep.Requests - rep.Invalid, Failed: rep.Invalid, Kinds: kinds, Parts: len(rep.Files), Unreadable: unreadable})
	}
	switch {
	case unreadable > 0:
		// Each file's error is already said, or in the report.
		return &exitError{code: ExitUsage, silent: true}
	case rep.Invalid > 0:
		return errFailures
	}
	return nil
}

// positionOr is p as text, or name when p names no place.
func positionOr(p yamlpos.Pos, name string) string {
	if s := p.String(); s != "" {
		return s
	}
	return name
}

// fileProblem turns the error of a file that could not be read or parsed
// into a problem of the report, with its place when it has one.
func fileProblem(name string, err error) *validateProblem {
	var pe *request.ParseError
	if errors.As(err, &pe) {
		return &validateProblem{File: pe.Pos.File, Line: pe.Pos.Line, Column: pe.Pos.Col, Message: parseErrorMsg(pe)}
	}
	var fe *fs.PathError
	if errors.As(err, &fe) {
		return &validateProblem{File: name, Message: fe.Err.Error()}
	}
	return &validateProblem{File: name, Message: strings.TrimPrefix(err.Error(), name+": ")}
}
