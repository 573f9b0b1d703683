package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolsource"
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
		Short: "Check request and eval files against the tools; run nothing",
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

Eval files (kesoku help eval-files) are read as eval reads its FILEs, one
eval, each case's tools (tools:, or the default offering) checked; stderr
says which: "cases.yaml: an eval file: 3 cases, valid".

--json prints one JSON document on standard output instead, and nothing
on standard error: every file, every problem and whether all is valid
(kesoku help ci shows it).

EXIT STATUS
  0    every request and case is valid
  1    at least one request or case is invalid
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
	Name string `json:"name"`
	// Kind is validateEval for an eval file, whose cases are counted;
	// empty for a request file.
	Kind     string `json:"kind,omitempty"`
	Requests int    `json:"requests"`
	Cases    int    `json:"cases,omitempty"`
	// Error says why the file could not be read or parsed; its requests
	// before that point are still counted and checked.
	Error *validateProblem `json:"error,omitempty"`
}

// validateReport is what --json prints: one JSON document.
type validateReport struct {
	Valid    bool              `json:"valid"`
	Requests int               `json:"requests"`
	Cases    int               `json:"cases,omitempty"`
	Invalid  int               `json:"invalid"`
	Files    []validateFile    `json:"files"`
	Problems []validateProblem `json:"problems"`
}

func runValidate(ctx context.Context, o *validateOptions) error {
	format, err := requestFormat(o.Format, o.Files)
	if err != nil {
		return err
	}
	_, env, err := o.g.env(ctx, app.Options{Tools: o.Registry})
	if err != nil {
		return err
	}
	defer env.Close()
	// The runner run would have: what its tools refuse before they run
	// (a path outside the working directory) depends on where.
	ropts := env.RunnerOptions()
	ropts.Shard = request.Shard(o.Shard)
	v := &validator{o: o, format: format, check: runner.New(env.Tools.Registry, ropts).Checker(),
		rep:   validateReport{Files: []validateFile{}, Problems: []validateProblem{}},
		cases: &caseChecker{set: env.Tools, offers: map[string]caseOffer{}, mistakes: map[int][]eval.Mistake{}}}
	if !o.JSON {
		v.cases.notOffered = o.g.notOffered
	}
	o.g.IO.noteReading(o.Files, o.g.Quiet || o.JSON)
	v.cases.together(o.Files)
	defer v.cases.close()
	for _, name := range o.Files {
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err := v.file(ctx, name); err != nil {
			return err
		}
	}
	return v.finish()
}

// validator checks the files of kesoku validate one after another, and
// keeps its report.
type validator struct {
	o      *validateOptions
	format request.Format
	check  *runner.Checker
	cases  *caseChecker
	rep    validateReport
	count  app.ValidateCount
}

// problem reports one request or case that would be refused.
func (v *validator) problem(vp validateProblem, at string) error {
	v.rep.Invalid++
	v.count.Problem(message.ErrorKind(vp.Kind))
	if v.o.JSON {
		v.rep.Problems = append(v.rep.Problems, vp)
		return nil
	}
	line := fmt.Sprintf("%s: %s: %s: %s", at, vp.ID, vp.Kind, vp.Message)
	if _, err := fmt.Fprintln(v.o.g.IO.Out, termtext.Escape(line)); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// file checks the file name, on its own, so that one that cannot be
// parsed does not hide the problems of the others. Its error ends
// validate (a problem that could not be written).
func (v *validator) file(ctx context.Context, name string) error {
	o, io := v.o, v.o.g.IO
	vf := validateFile{Name: name}
	var err error
	if name != "-" && eval.IsCaseFile(name) {
		vf.Kind = validateEval
		var invalid int
		invalid, err = v.cases.check(name, &vf, v.problem)
		v.rep.Cases += vf.Cases
		if err == nil && !o.JSON && !o.g.Quiet {
			state := "valid"
			if invalid > 0 {
				state = fmt.Sprintf("%d invalid", invalid)
			}
			fmt.Fprintf(io.Err, "kesoku: %s: an eval file: %s, %s\n", termtext.Escape(name), english.Count(vf.Cases, "case", "cases"), state)
		}
	} else {
		err = v.requests(ctx, name, &vf)
	}
	var werr *writeError
	if errors.As(err, &werr) {
		return werr.err
	}
	if err != nil {
		v.count.Unreadable++
		vf.Error = fileProblem(name, err)
		if !o.JSON {
			// Worded as run words it: the flag that fixes it named.
			fmt.Fprintf(io.Err, "kesoku: %s\n", termtext.Lines(errorText(fileError(err))))
		}
	}
	v.rep.Files = append(v.rep.Files, vf)
	return nil
}

// requests checks the requests of the request file name, counted in vf.
// Its error says why the file could not be read, or is a *writeError.
func (v *validator) requests(ctx context.Context, name string, vf *validateFile) error {
	f, err := request.Open(ctx, name, v.format, v.o.g.IO.In)
	if err != nil {
		return err
	}
	defer f.Close()
	vf.Name = f.Name
	for req := range f.Requests() {
		p, mine := v.check.Next(req)
		if !mine {
			continue
		}
		v.rep.Requests++
		vf.Requests++
		if p == nil {
			continue
		}
		vp := validateProblem{File: p.Pos.File, Line: p.Pos.Line, Column: p.Pos.Col, ID: req.ID, Kind: string(p.Kind), Message: p.Message}
		if vp.File == "" {
			vp.File = f.Name
		}
		if err := v.problem(vp, positionOr(p.Pos, f.Name)); err != nil {
			return &writeError{err}
		}
	}
	return f.Err()
}

// finish prints the report (--json) and the summary, and ends validate
// with its exit status.
func (v *validator) finish() error {
	o, rep := v.o, &v.rep
	rep.Valid = rep.Invalid == 0 && v.count.Unreadable == 0
	if o.JSON {
		data, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		if _, err := o.g.IO.Out.Write(append(data, '\n')); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if !o.JSON || o.Summary == summaryJSON {
		v.count.Total, v.count.Cases, v.count.Files = rep.Requests+rep.Cases, rep.Cases, len(rep.Files)
		o.g.printSummary(o.Summary, &v.count)
	}
	switch {
	case v.count.Unreadable > 0:
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

// validateEval is the kind of an eval file in validate's report.
const validateEval = "eval"

// caseChecker checks the cases of eval files as kesoku eval would before
// it sends anything: each case's tools (its tools:, or the default
// offering) chosen from the tool set. The eval files given are one eval,
// as eval reads its FILEs: ids are unique in all of them, and a case
// without one is numbered in the whole eval.
type caseChecker struct {
	// joint is the eval files given read together, when that could be
	// done: each file's cases are taken from it in turn (next, file).
	// Otherwise each file is read alone, so that each one's own mistakes
	// are said, and the mistake of reading them together (an id that an
	// earlier file gives too) is that of the file it names, jointFile,
	// when it has none of its own.
	joint     *eval.Set
	next      func() (*eval.Case, error, bool)
	stop      func()
	file      int
	jointErr  error
	jointFile string

	set *toolsource.Set
	// offers are the choices made, by tools: as written: many cases name
	// the same tools.
	offers map[string]caseOffer
	// notOffered says the tools of servers that could not start, once.
	notOffered func(error)
	said       bool
	// mistakes are the cases with a mistake of the files read together,
	// by the file's index, until its turn: each is a problem of its own,
	// and the other cases are read on, as a request file's are.
	mistakes map[int][]eval.Mistake
}

// openCases reads the eval files paths, handing their cases' mistakes to
// into, each with the index of its file among paths.
func openCases(paths []string, into map[int][]eval.Mistake) (*eval.Set, error) {
	return eval.Open(paths, eval.OpenOptions{Mistakes: func(m eval.Mistake) error {
		into[m.File] = append(into[m.File], m)
		return nil
	}})
}

// caseOffer is the tools a list offers, or why it cannot be offered.
type caseOffer struct {
	offer *offering
	err   error
}

// together reads the eval files among names as one eval, when there
// are several.
func (c *caseChecker) together(names []string) {
	var files []string
	for _, name := range names {
		if name != "-" && eval.IsCaseFile(name) {
			files = append(files, name)
		}
	}
	if len(files) < 2 {
		return
	}
	var err error
	if c.joint, err = openCases(files, c.mistakes); err == nil {
		c.next, c.stop = iter.Pull2(c.joint.All())
		return
	}
	// Each file is read again alone, and tells its mistakes again.
	clear(c.mistakes)
	if ne, ok := errors.AsType[*yamlpos.NodeError](err); ok {
		c.jointErr, c.jointFile = err, ne.Pos.File
	}
}

func (c *caseChecker) close() {
	if c.joint != nil {
		c.stop()
		c.joint.Close()
	}
}

// cases are the cases of the eval file name, the next of those given:
// taken from the files read together, or read from it alone; mistakes
// are those of its cases that have one.
func (c *caseChecker) cases(name string) (_ iter.Seq2[*eval.Case, error], done func(), mistakes []eval.Mistake, _ error) {
	if c.joint != nil {
		n := c.joint.Cases(c.file)
		mistakes = c.mistakes[c.file]
		c.file++
		return func(yield func(*eval.Case, error) bool) {
			for range n {
				k, err, ok := c.next()
				if !ok || !yield(k, err) || err != nil {
					return
				}
			}
		}, func() {}, mistakes, nil
	}
	own := map[int][]eval.Mistake{}
	alone, err := openCases([]string{name}, own)
	if err != nil {
		return nil, nil, nil, err
	}
	if name == c.jointFile {
		alone.Close()
		c.jointFile = "" // said once, of a file given twice
		return nil, nil, nil, c.jointErr
	}
	return alone.All(), func() { alone.Close() }, own[0], nil
}

func (c *caseChecker) sayNotOffered(err error) {
	if !c.said && c.notOffered != nil {
		c.said = true
		c.notOffered(err)
	}
}

// writeError is a problem that could not be written: it ends validate.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// check reads the eval file name as eval does, counts its cases in vf and
// hands each case whose tools cannot be offered to problem; invalid is
// how many. Its error says why the file could not be read, or is a
// *writeError.
func (c *caseChecker) check(name string, vf *validateFile, problem func(validateProblem, string) error) (invalid int, err error) {
	// Read as eval reads it: every case checked, then read again a case
	// at a time, so that a file of any size is checked in flat memory.
	cases, done, mistakes, err := c.cases(name)
	if err != nil {
		return 0, err
	}
	defer done()
	// The cases with a mistake are told in their places among the others,
	// all in the order of the file: each one's mistake lies before the
	// next case.
	tell := func(before *yamlpos.Pos) error {
		for len(mistakes) > 0 {
			m := mistakes[0]
			p := m.Err.Pos
			if before != nil && (p.Line > before.Line || p.Line == before.Line && p.Col > before.Col) {
				return nil
			}
			mistakes = mistakes[1:]
			vf.Cases++
			invalid++
			vp := validateProblem{File: p.File, Line: p.Line, Column: p.Col, ID: m.ID, Kind: string(message.KindInvalidRequest), Message: m.Message()}
			if err := problem(vp, positionOr(p, name)); err != nil {
				return &writeError{err}
			}
		}
		return nil
	}
	for k, err := range cases {
		if err != nil {
			return invalid, err
		}
		if err := tell(&k.Pos); err != nil {
			return invalid, err
		}
		vf.Cases++
		choice, key := toolChoice{}, "\x00default"
		if k.Tools != nil {
			choice, key = toolChoice{Tools: k.Tools, named: true}, strings.Join(k.Tools, ",")
		}
		o, seen := c.offers[key]
		if !seen {
			o.offer, o.err = offerTools(c.set, choice, true, c.sayNotOffered)
			c.offers[key] = o
		}
		err := o.err
		msg := ""
		if err != nil {
			msg = "tools: " + err.Error()
			if te, ok := errors.AsType[*toolsErr](err); ok {
				msg = "tools: " + te.err.Error()
			}
		} else {
			for _, name := range k.Expect.Tools() {
				if err = unknownTool(c.set, o.offer, name); err != nil {
					msg = "expect: " + err.Error()
					break
				}
			}
		}
		if err == nil {
			continue
		}
		invalid++
		kind := records.KindOf(records.InvalidRequest(err))
		vp := validateProblem{File: k.Pos.File, Line: k.Pos.Line, Column: k.Pos.Col, ID: k.ID, Kind: string(kind), Message: msg}
		if err := problem(vp, positionOr(k.Pos, name)); err != nil {
			return invalid, &writeError{err}
		}
	}
	if err := tell(nil); err != nil {
		return invalid, err
	}
	return invalid, nil
}

// fileProblem turns the error of a file that could not be read or parsed
// into a problem of the report, with its place when it has one.
func fileProblem(name string, err error) *validateProblem {
	var pe *request.ParseError
	if errors.As(err, &pe) {
		return &validateProblem{File: pe.Pos.File, Line: pe.Pos.Line, Column: pe.Pos.Col, Message: parseErrorMsg(pe)}
	}
	var ne *yamlpos.NodeError
	if errors.As(err, &ne) {
		return &validateProblem{File: ne.Pos.File, Line: ne.Pos.Line, Column: ne.Pos.Col, Message: ne.Msg}
	}
	var fe *fs.PathError
	if errors.As(err, &fe) {
		return &validateProblem{File: name, Message: fe.Err.Error()}
	}
	return &validateProblem{File: name, Message: strings.TrimPrefix(errorText(err), name+": ")}
}
