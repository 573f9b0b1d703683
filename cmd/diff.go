package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/diff"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/termtext"
)

// diffOptions are what `kesoku diff` was asked to do.
type diffOptions struct {
	g        *globals
	Old, New string
	JSON     bool
	Ignore   []string
	Messages bool
	JUnit    string
	Summary  summaryFormat

	ignore []diff.Path // parsed by check
}

// newDiffCmd builds `kesoku diff`; tests pass runF to see the options the
// flags made.
func newDiffCmd(g *globals, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{g: g}
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two runs' records request by request",
		Long: `diff compares the records of two runs, OLD and NEW (files that run or
session wrote; "-" for standard input), request by request, and prints
every difference: snapshot tests for tools. Records are paired by the
request they answer and compared by value: the tool's name, the status,
the error's kind and the content, never the fields that differ from run
to run (id, created_at, duration_ms...) nor, unless --messages, the
error's message. A request in one file only is a difference too.

Each difference is one line on standard output, in the order found, the
place as jq writes it, and a summary follows on standard error (not with
-q):

  call_2 (read_file): .content.lines[3]: "foo" -> "bar"
  call_4 (calculate_sum): .error: (absent) -> {"kind":"tool_error",...}
  call_5 (sleep): only in golden.jsonl
  kesoku: 3 of 9 requests differ: 1 changed, 1 new error, 1 only in ...

--json prints JSON lines instead. Two runs of one request file compare in
flat memory however long they are.

EXIT STATUS
  0  the files answer the same requests the same way
  1  at least one request differs
  2  bad usage, or a file that cannot be read or parsed (with file:line);
     differences printed before it are kept`,
		Example: `  kesoku run tests.yaml -o golden.jsonl      # once
  kesoku run tests.yaml -o new.jsonl && kesoku diff golden.jsonl new.jsonl
  kesoku diff golden.jsonl new.jsonl --ignore '.content.files[].mtime'
  kesoku run tests.yaml | kesoku diff golden.jsonl -
  kesoku diff golden.jsonl new.jsonl --json |
    jq -r 'select(.change == "new_error") | .request'`,
		Args: argSpec{what: "records file", min: 2, max: 2, missing: diffMissing,
			tooMany: func(args []string) string {
				return fmt.Sprintf("compares two records files, OLD and NEW, not %d: %s", len(args), quoteArgs(args))
			}}.args,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runDiff(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the differences as JSON lines")
	checkedArrayVar(f, &opts.Ignore, "ignore", "leave out the place `PATH` and what is under it (.content.modified); repeatable", func(s string) error {
		_, err := parseIgnore(s)
		return err
	})
	f.BoolVar(&opts.Messages, "messages", false, "compare the error's message too, not only its kind")
	f.StringVar(&opts.JUnit, "junit", "", junitUsage)
	registerSummary(f, &opts.Summary)
	return seeAlso(c, "snapshots", "records", "ci")
}

// diffMissing says which of OLD and NEW is missing.
func diffMissing(args []string) string {
	if len(args) == 0 {
		return `no OLD and NEW records files to compare (give - for standard input)`
	}
	return fmt.Sprintf("no NEW records file to compare with %s", args[0])
}

// recordFields are the top-level fields of a record: --ignore of one that
// is never compared is harmless, of any other name a mistake.
var recordFields = []string{"id", "session_id", "parent_id", "role", "type", "status", "name", "content", "is_error", "error", "args_hash", "position", "created_at", "duration_ms", "call_id", "model", "provider_data", "truncated", "model_call_id", "cut", "usage", "repeat", "cost_usd", "trace_id", "span_id"}

// check parses --ignore and refuses reading standard input twice, and a
// report that would replace either file.
func (o *diffOptions) check() error {
	if o.Old == "-" && o.New == "-" {
		return usageErrf(`"-" (standard input) given twice`)
	}
	for _, s := range o.Ignore {
		p, err := parseIgnore(s)
		if err != nil {
			return usageErrf("--ignore %s: %w", s, err)
		}
		o.ignore = append(o.ignore, p)
	}
	return checkReportPath(o.JUnit, o.Old, o.New)
}

// parseIgnore parses a place --ignore leaves out, which must be one a
// record can have.
func parseIgnore(s string) (diff.Path, error) {
	p, err := diff.ParsePath(s)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, errors.New("that is the whole record")
	}
	switch top := p[0]; {
	case top.Kind != diff.KeyStep:
		return nil, errors.New("a record is an object: start with .content, .error, .status or .name")
	case !slices.Contains(recordFields, top.Key):
		return nil, fmt.Errorf("a record has no field %q; the tool's result is under .content (%s)", top.Key, append(diff.Path{{Kind: diff.KeyStep, Key: "content"}}, p...))
	case top.Key == "error" && len(p) > 1 && (p[1].Kind != diff.KeyStep || p[1].Key != "kind" && p[1].Key != "message"):
		return nil, errors.New("an error has a kind and a message (.error.kind, .error.message)")
	}
	return p, nil
}

func runDiff(ctx context.Context, o *diffOptions) error {
	old, new, closeFiles, err := o.open(ctx)
	if ctx.Err() != nil {
		// Interrupted while a FIFO waited for its writer.
		return errInterrupted
	}
	if err != nil {
		return err
	}
	defer closeFiles()
	boundDiffMemory(o.Old, o.New)
	out := bufio.NewWriterSize(o.g.IO.Out, 64<<10)
	p := &diffPrinter{w: out, oldName: termtext.Escape(old.Name), newName: termtext.Escape(new.Name)}
	dopts := app.DiffOptions{Compare: diff.Options{Ignore: o.ignore, Messages: o.Messages}, Emit: p.text, JUnit: o.JUnit}
	if o.JSON {
		dopts.Emit = p.json
	} else {
		dopts.Compare.MaxChanges = maxShownChanges
	}
	sum, err := app.Diff(ctx, old, new, dopts)
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = &app.UsageError{Err: fmt.Errorf("write: %w", ferr)}
	}
	switch {
	case p.err != nil:
		return fmt.Errorf("write: %w", p.err)
	case err != nil && ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return appErr(err)
	}
	if !o.g.Quiet && o.Summary != summaryJSON {
		for _, name := range sum.Torn {
			fmt.Fprintf(o.g.IO.Err, "kesoku: %s: its last line is a record cut short (a run killed while it wrote?); left out\n", termtext.Escape(name))
		}
	}
	o.g.printSummary(o.Summary, &sum)
	if sum.Different() > 0 {
		return errFailures
	}
	return nil
}

// open opens the two records files, "-" being standard input.
func (o *diffOptions) open(ctx context.Context) (old, new diff.File, closeFiles func(), err error) {
	old, closeOld, err := openDiffFile(ctx, o.Old, o.g.IO.In)
	if err != nil {
		return old, new, nil, usageErr(fileError(err))
	}
	new, closeNew, err := openDiffFile(ctx, o.New, o.g.IO.In)
	if err != nil {
		closeOld()
		return old, new, nil, usageErr(fileError(err))
	}
	return old, new, func() { closeOld(); closeNew() }, nil
}

// streamingHeap is the heap diff is given on top of twice the smaller
// file: the pairs being compared and the differences being written.
const streamingHeap = 32 << 20

// boundDiffMemory sets a soft memory limit for a comparison of the files
// old and new, unless GOMEMLIMIT says otherwise: what diff holds is within
// twice the smaller file, but without a limit the collector lets the heap
// grow to twice what is held before it collects what was handed out (the
// differences of a record whose every value changed). Standard input,
// whose size is not known, sets none.
func boundDiffMemory(old, new string) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	smaller := int64(-1)
	for _, name := range []string{old, new} {
		st, err := os.Stat(name)
		if name == "-" || err != nil || !st.Mode().IsRegular() {
			return
		}
		if smaller < 0 || st.Size() < smaller {
			smaller = st.Size()
		}
	}
	debug.SetMemoryLimit(2*smaller + streamingHeap)
}

// openDiffFile opens a records file, "-" being standard input; a FIFO
// (diff <(...)) as run opens one: waiting for its writer, and read, only
// until ctx ends.
func openDiffFile(ctx context.Context, name string, stdin io.Reader) (diff.File, func(), error) {
	if name == "-" {
		return diff.File{Name: "<stdin>", Records: records.NewReader(stdin, "<stdin>")}, func() {}, nil
	}
	f, err := request.OpenInput(ctx, name)
	if err != nil {
		return diff.File{}, nil, err
	}
	var r io.Reader = f
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return diff.File{}, nil, fmt.Errorf("%s: is a directory", name)
	} else if err == nil && !st.Mode().IsRegular() {
		r = request.NewInterruptibleReader(ctx, f)
	}
	return diff.File{Name: name, Records: records.NewReader(r, name)}, func() { f.Close() }, nil
}

// diffPrinter writes differences, keeping the first write error.
type diffPrinter struct {
	w                *bufio.Writer
	oldName, newName string
	err              error
	buf              []byte
}

// The bounds of diff's text output, as its help states them.
const (
	maxShownValue   = 160
	maxShownChanges = 20
)

func (p *diffPrinter) text(d *diff.Difference) error {
	req := showRequest(d.Request)
	if d.Name != "" {
		// A tool's name as a record holds it: a newline or an ESC in it
		// would forge or hide lines of the output.
		req += " (" + termtext.Escape(d.Name) + ")"
	}
	switch d.Kind {
	case diff.OnlyOld:
		fmt.Fprintf(p.w, "%s: only in %s\n", req, p.oldName)
	case diff.OnlyNew:
		fmt.Fprintf(p.w, "%s: only in %s\n", req, p.newName)
	}
	for _, c := range d.Changes {
		fmt.Fprintf(p.w, "%s: %s: %s -> %s\n", req, c.Path, showValue(c.Old), showValue(c.New))
	}
	if d.More > 0 {
		fmt.Fprintf(p.w, "%s: and %d more (--json lists them all)\n", req, d.More)
	}
	return p.check()
}

// diffLine is one line of diff --json.
type diffLine struct {
	Request string          `json:"request"`
	Name    string          `json:"name,omitempty"`
	Change  diff.Kind       `json:"change"`
	Path    string          `json:"path,omitempty"`
	Old     json.RawMessage `json:"old,omitempty"`
	New     json.RawMessage `json:"new,omitempty"`
	OldLine int             `json:"old_line,omitempty"`
	NewLine int             `json:"new_line,omitempty"`
}

func (p *diffPrinter) json(d *diff.Difference) error {
	l := diffLine{Request: d.Request, Name: d.Name, Change: d.Kind, OldLine: d.OldLine, NewLine: d.NewLine}
	if len(d.Changes) == 0 {
		return p.jsonLine(&l)
	}
	for _, c := range d.Changes {
		l.Path, l.Old, l.New = c.Path.String(), c.Old, c.New
		if err := p.jsonLine(&l); err != nil {
			return err
		}
	}
	return nil
}

// jsonLine writes l as encoding/json would (without HTML escapes), the
// values as the records hold them: a value of megabytes goes out as it
// is, not copied into an encoder's buffer. They are JSON on one line, as
// every record line is.
func (p *diffPrinter) jsonLine(l *diffLine) error {
	b := append(p.buf[:0], `{"request":`...)
	b = records.AppendString(b, l.Request)
	if l.Name != "" {
		b = append(b, `,"name":`...)
		b = records.AppendString(b, l.Name)
	}
	b = append(b, `,"change":`...)
	b = records.AppendString(b, string(l.Change))
	if l.Path != "" {
		b = append(b, `,"path":`...)
		b = records.AppendString(b, l.Path)
	}
	p.buf = b
	p.w.Write(b)
	if l.Old != nil {
		p.w.WriteString(`,"old":`)
		p.w.Write(l.Old)
	}
	if l.New != nil {
		p.w.WriteString(`,"new":`)
		p.w.Write(l.New)
	}
	b = b[:0]
	if l.OldLine != 0 {
		b = strconv.AppendInt(append(b, `,"old_line":`...), int64(l.OldLine), 10)
	}
	if l.NewLine != 0 {
		b = strconv.AppendInt(append(b, `,"new_line":`...), int64(l.NewLine), 10)
	}
	p.w.Write(append(b, "}\n"...))
	return p.check()
}

// check returns the first write error: once standard output is gone,
// there is no point in comparing on.
func (p *diffPrinter) check() error {
	if p.err != nil {
		return p.err
	}
	if _, err := p.w.Write(nil); err != nil {
		p.err = err
	}
	return p.err
}

// showRequest is a request's id as diff prints it: quoted when it holds
// space or other characters that would blur the line.
func showRequest(id string) string {
	if id == "" || strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == ':' }) {
		return strconv.Quote(id)
	}
	return id
}

// showValue is a value as diff prints it: compact JSON, cut in the middle
// when long, escaped for the terminal (JSON lets a string hold a
// bidirectional override or a C1 control as it is).
func showValue(v json.RawMessage) string {
	if v == nil {
		return "(absent)"
	}
	if len(v) <= maxShownValue {
		return termtext.Escape(string(v))
	}
	head, tail := cutAtRune(v, maxShownValue*2/3, true), cutAtRune(v, maxShownValue/4, false)
	return termtext.Escape(fmt.Sprintf("%s ... (%d bytes) ... %s", head, len(v), tail))
}

// cutAtRune returns about n bytes of the start (or the end) of b, not
// splitting a UTF-8 character.
func cutAtRune(b []byte, n int, start bool) string {
	if start {
		for n > 0 && n < len(b) && b[n]&0xC0 == 0x80 {
			n--
		}
		return string(b[:n])
	}
	i := len(b) - n
	for i < len(b) && b[i]&0xC0 == 0x80 {
		i++
	}
	return string(b[i:])
}
