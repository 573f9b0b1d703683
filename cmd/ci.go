package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/termtext"
)

// summaryFormat is --summary: how a command's closing summary is said.
type summaryFormat string

const (
	summaryText summaryFormat = "text"
	summaryJSON summaryFormat = "json"
)

func (s *summaryFormat) String() string {
	if *s == "" {
		return string(summaryText)
	}
	return string(*s)
}

// Type is that of a string flag: the usage names the values.
func (s *summaryFormat) Type() string { return "string" }

// Set takes text or json.
func (s *summaryFormat) Set(v string) error {
	switch f := summaryFormat(strings.ToLower(strings.TrimSpace(v))); f {
	case summaryText, summaryJSON:
		*s = f
		return nil
	}
	return fmt.Errorf("%q: want text or json", v)
}

// registerSummary adds --summary to a command's flags.
func registerSummary(f *pflag.FlagSet, s *summaryFormat) {
	f.Var(s, "summary", "the closing summary, `text` or json")
}

// summaryHints are what a closing summary advises, in the flags' words.
var summaryHints = records.Hints{
	Finish:   "--resume with -o finishes them",
	Rerun:    "run their shards again with --resume",
	Redo:     "--resume with -o runs the aborted requests again",
	FailFast: "stopped by --fail-fast",
}

// printSummary says a command's closing summary on standard error: one
// line of text (not with -q), or with --summary json one JSON object,
// which -q does not silence: a script asked for it.
func (g *globals) printSummary(format summaryFormat, sum records.Report) {
	if format == summaryJSON {
		b, err := json.Marshal(sum)
		if err != nil {
			panic(err) // a report is counts and names: it always marshals
		}
		g.IO.Err.Write(append(b, '\n'))
		return
	}
	if !g.Quiet {
		fmt.Fprintln(g.IO.Err, termtext.Escape(sum.Text(summaryHints)))
	}
}

// checkReportPath refuses, as bad usage, a --junit file that is one of
// the files the command reads or writes (others), under whatever name:
// the report would replace it.
func checkReportPath(path string, others ...string) error {
	if path == "" {
		return nil
	}
	abs, _ := filepath.Abs(path)
	st, statErr := os.Stat(path)
	for _, o := range others {
		if o == "" || o == "-" {
			continue
		}
		oabs, _ := filepath.Abs(o)
		ost, err := os.Stat(o)
		if oabs == abs || statErr == nil && err == nil && os.SameFile(st, ost) {
			return usageErrf("--junit %s is also %s: the report would replace it", path, o)
		}
	}
	return nil
}

const junitUsage = "also write a JUnit XML report to `FILE`, for CI"
