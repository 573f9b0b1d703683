package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/gen"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// genOptions are what `kesoku gen` was asked to do.
type genOptions struct {
	IO       *ioStreams
	Quiet    bool
	Check    bool
	Patterns []string
	// Registry holds the Go tools compiled into this program, whose names
	// gen keeps other packages' tools from taking; registry.Default but
	// in tests.
	Registry *registry.Registry
}

// newGenCmd builds `kesoku gen`; tests pass runF to see the options the
// flags made.
func newGenCmd(g *globals, runF func(context.Context, *genOptions) error) *cobra.Command {
	opts := &genOptions{Registry: registry.Default}
	c := &cobra.Command{
		Use:   "gen [PACKAGES]",
		Short: "Regenerate the tool registrations from the Go doc comments",
		Long: `gen reads the Go packages named (default ./..., from the current directory),
finds every function whose doc comment holds the line //kesoku:tool, and
writes kesoku_gen.go beside it: the code that registers each tool with its
description and JSON schema, and decodes a call's arguments into the typed
parameters without reflection. A package with no tools gets no file, and a
kesoku_gen.go left in a package that no longer has tools is removed.

A tool is a function with a Google-style doc comment:

	// CalculateTotal adds two integers.
	//
	// Args:
	//	a: the first integer.
	//	b: the second integer. Defaults to 0.
	//	mode: how to add. Must be one of: exact, saturating.
	//
	//kesoku:tool
	func CalculateTotal(a, b int, mode string) int

Mistakes (a parameter without an Args entry, an unsupported type, a name
another tool has, one of kesoku's own such as calculate_sum or another
package's...) are all reported at once as file:line: message, and nothing is
written. With --check nothing is written either: gen fails, naming each
stale, missing or orphaned kesoku_gen.go, when running it would change a
file.

EXIT STATUS
  0  done (with --check: everything up to date)
  1  a mistake in a tool's declaration, a package that does not load, a
     module that cannot build the generated code, or, with --check, a
     stale, missing or orphaned generated file
  2  bad usage`,
		Example: `  kesoku gen
  kesoku gen ./internal/tools
  kesoku gen --check ./...
  //go:generate go run -tags kesoku_nogen github.com/kesoku/kesoku gen .`,
		// Two tools of one name stop every other command: gen is how the
		// user gets out, once one is renamed.
		Annotations: map[string]string{withClashes: "yes"},
		RunE: func(c *cobra.Command, args []string) error {
			opts.IO, opts.Quiet, opts.Patterns = g.IO, g.Quiet, args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runGen(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Check, "check", false, "write nothing; fail when a generated file is stale, missing or orphaned")
	return seeAlso(c, "go-tools")
}

func runGen(ctx context.Context, opts *genOptions) error {
	files, err := gen.Generate(ctx, gen.Config{Patterns: opts.Patterns, Command: genCommand(opts.Patterns), NamesFrom: generateRoot(),
		Env: secret.GoEnviron(os.Environ()), Compiled: compiledTools(opts.Registry)})
	var mistakes gen.Errors
	if errors.As(err, &mistakes) {
		for _, m := range mistakes {
			fmt.Fprintln(opts.IO.Err, termtext.Lines(m.Error()))
		}
		noun := "mistakes"
		if len(mistakes) == 1 {
			noun = "mistake"
		}
		fmt.Fprintf(opts.IO.Err, "kesoku gen: %d %s in tool declarations; nothing written\n", len(mistakes), noun)
		return errFailures
	}
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if opts.Check {
		return checkGen(opts, files)
	}
	changed, err := gen.Write(files)
	if !opts.Quiet {
		for _, f := range changed {
			if f.State() == gen.Orphaned {
				fmt.Fprintf(opts.IO.Err, "removed %s/%s: the package has no tools any more\n", f.Dir, gen.FileName)
				continue
			}
			fmt.Fprintf(opts.IO.Err, "wrote %s/%s (%s)\n", f.Dir, gen.FileName, genPlural(len(f.Tools), "tool"))
		}
	}
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	return nil
}

// compiledTools are the Go tools of r, for gen: those that hold their
// names and those turned away for a name another had, since gen is what
// runs while such a clash stands and must see both sides of it. A nil r
// has none.
func compiledTools(r *registry.Registry) []gen.CompiledTool {
	var out []gen.CompiledTool
	if r == nil {
		return nil
	}
	add := func(s *toolspec.Spec[registry.ToolContext]) {
		out = append(out, gen.CompiledTool{Name: s.Name, Package: s.Package, Source: s.Source, Typed: !toolspec.Generated(r, s)})
	}
	for _, s := range r.All() {
		add(s)
	}
	for _, c := range toolspec.Clashes(r) {
		add(c.Refused)
	}
	return out
}

func checkGen(opts *genOptions, files []*gen.File) error {
	bad := 0
	run := genCommand(opts.Patterns)
	for _, f := range files {
		var msg string
		switch f.State() {
		case gen.UpToDate:
			continue
		case gen.Missing:
			msg = "%s is missing in %s: run %s"
		case gen.Stale:
			msg = "%s is stale in %s: run %s"
		case gen.Orphaned:
			msg = "%s in %s registers tools that no longer exist: run %s"
		}
		fmt.Fprintf(opts.IO.Err, msg+"\n", gen.FileName, f.Dir, termtext.Escape(run))
		bad++
	}
	if bad > 0 {
		return errFailures
	}
	return nil
}

// genCommand is the command that runs gen over patterns here, as this
// program was started: "kesoku gen ./...", "go run . gen ./...".
func genCommand(patterns []string) string {
	return strings.Join(append([]string{selfCommand(), "gen"}, patterns...), " ")
}

func genPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// generateRoot is, when gen runs under go generate (which sets GOFILE and
// runs it in each package's directory), the directory of the module
// being generated, which file names in messages are then relative to;
// "" otherwise, or when there is no go.mod above.
func generateRoot() string {
	if os.Getenv("GOFILE") == "" {
		return ""
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
