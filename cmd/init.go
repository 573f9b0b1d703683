package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	"github.com/kesoku/kesoku/internal/scaffold"
	"github.com/kesoku/kesoku/internal/termtext"
)

// initOptions are what `kesoku init` was asked to do.
type initOptions struct {
	IO     *ioStreams
	Quiet  bool
	Dir    string
	Module string
	Force  bool
	// Kesoku is --kesoku: a version or a clone's directory; "" for the
	// kesoku this program was built from.
	Kesoku string
}

// newInitCmd builds `kesoku init`; tests pass runF.
func newInitCmd(g *globals, runF func(*initOptions) error) *cobra.Command {
	opts := &initOptions{}
	c := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a Go module of your own tools, ready to run",
		Long: `init writes a new Go module in DIR (default: the current directory, made
when it does not exist): go.mod, requiring kesoku; main.go, which is the
whole of kesoku with your tools added; tools/tools.go, with one tool, greet,
written as a documented Go function; the tools/kesoku_gen.go that kesoku gen
writes from it; and requests.yaml, which calls it. The module runs at once:

  kesoku init mytools && cd mytools && go run . run requests.yaml

The module path is DIR's name unless --module gives one. go.mod requires
the kesoku this program was built from: the clone it was built in, through
a replace directive, or, when it was installed from a published module
version, that version. --kesoku chooses another: a clone's directory or a
version (v1.2.0). kesoku's own requirements and checksums are copied, so
that nothing more needs fetching.

A DIR that holds files is refused unless --force is given, and even then
no file is ever replaced: one in the way stops init before it writes
anything.

EXIT STATUS
  0  the module was written
  1  a file could not be written
  2  bad usage, a DIR that is not empty, a file in the way, or a module
     path the go command does not take; nothing was written`,
		Example: `  kesoku init mytools
  kesoku init --module example.com/mytools mytools
  kesoku init --kesoku ../kesoku .`,
		Args: argSpec{what: "DIR", max: 1}.args,
		// A new module needs no config, and must not be refused for one.
		Annotations: map[string]string{noConfig: "yes"},
		RunE: func(c *cobra.Command, args []string) error {
			opts.IO, opts.Quiet, opts.Dir = g.IO, g.Quiet, "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runInit(opts)
		},
	}
	c.Flags().StringVar(&opts.Module, "module", "", "the new module's `PATH` (default: DIR's name)")
	c.Flags().BoolVar(&opts.Force, "force", false, "write into a DIR that holds files already (none is replaced)")
	c.Flags().StringVar(&opts.Kesoku, "kesoku", "", "the kesoku to require: a `VERSION` (v1.2.0) or a clone's DIR (default: the one this program was built from)")
	return seeAlso(c, "go-tools")
}

func runInit(opts *initOptions) error {
	k, err := initKesoku(opts.Kesoku)
	if err != nil {
		return err
	}
	res, err := scaffold.Create(scaffold.Options{Dir: opts.Dir, Module: opts.Module, Force: opts.Force, Kesoku: k})
	if err != nil {
		return initErr(err)
	}
	if !opts.Quiet {
		tellInit(opts.IO.Err, res, k)
	}
	return nil
}

// initErr words what scaffold.Create returned, with its exit status.
func initErr(err error) error {
	var (
		notEmpty *scaffold.NotEmptyError
		exists   *scaffold.ExistsError
		badPath  *scaffold.ModulePathError
	)
	switch {
	case errors.As(err, &notEmpty):
		return usageErrf("init: %w: give an empty or new DIR, or --force to add the module's files beside the others", err)
	case errors.As(err, &exists):
		return usageErr(fmt.Errorf("init: %w", err))
	case errors.As(err, &badPath) && badPath.FromDir:
		return usageErrf("init: %w: name the module with --module (example.com/mytools)", err)
	case errors.As(err, &badPath):
		return usageErrf("init: --module: %w", err)
	}
	return fmt.Errorf("init: %w", err)
}

// tellInit says what init wrote, and what to do next.
func tellInit(w io.Writer, res *scaffold.Result, k scaffold.Kesoku) {
	fmt.Fprintf(w, "wrote module %s in %s: %s\n", termtext.Escape(res.Module), termtext.Escape(res.Dir), termtext.Escape(strings.Join(res.Files, ", ")))
	if k.Dir != "" {
		fmt.Fprintf(w, "it uses kesoku from %s (a replace directive in go.mod)\n", termtext.Escape(k.Dir))
	}
	fmt.Fprintln(w, "next:")
	if rel := relDir(res.Dir); rel != "." {
		fmt.Fprintf(w, "  cd %s\n", termtext.Escape(rel))
	}
	if !res.Complete {
		// Without kesoku's own go.mod and go.sum at hand, the go command
		// finds the rest.
		fmt.Fprintln(w, "  go mod tidy")
	}
	fmt.Fprintf(w, "  go run . run requests.yaml     # calls %s; then edit tools/tools.go, and go generate ./...\n", res.Tool)
}

// initKesoku is the kesoku --kesoku names: a version, or a clone's
// directory; or, given none, the one this program was built from.
func initKesoku(flag string) (scaffold.Kesoku, error) {
	var unknown *scaffold.UnknownSourceError
	var notKesoku *scaffold.NotKesokuError
	switch {
	case flag == "":
		k, err := scaffold.This(scaffold.ModCache)
		if errors.As(err, &unknown) {
			return k, usageErrf("init: %w: give --kesoku, a version (v1.2.0) or the directory of a clone", err)
		}
		return k, err
	case semver.IsValid(flag):
		if _, err := os.Stat(flag); err != nil {
			return scaffold.Release(flag, scaffold.ModCache(), ""), nil
		}
		// A directory named like a version is the clone meant.
	}
	k, err := scaffold.Checkout(flag)
	if errors.As(err, &notKesoku) {
		return k, usageErrf("init: --kesoku: %w", err)
	}
	return k, err
}

// relDir writes dir relative to the current directory when it is below
// it, for a cd the user types.
func relDir(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	if r, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return dir
}
