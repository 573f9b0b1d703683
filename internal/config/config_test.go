package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// keys are the flag names of the tests' commands.
var keys = []string{"jobs", "timeout", "output", "staging", "base-url", "mcp-config", "model", "tools", "quiet", "verbose", "fail-fast", "awd", "config", "resume"}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string // key=value of each setting, lists as [a, b]
		sections   []string
		err        string // the error, after "/x/kesoku.yaml:"
	}{
		{name: "empty", text: ""},
		{name: "comments only", text: "# nothing\n"},
		{name: "scalars as written", text: "jobs: 0x10\ntimeout: 30s\nmodel: 'gemini-2.5-flash'\nfail-fast: true\n",
			want: []string{"jobs=0x10", "timeout=30s", "model=gemini-2.5-flash", "fail-fast=true"}},
		{name: "a list", text: "staging: [a, b]\n", want: []string{"staging=[a, b]"}},
		{name: "no value leaves the default", text: "jobs:\nmodel: ~\n"},
		{name: "a literal block", text: "model: |\n  m\n", want: []string{"model=m\n"}},
		{name: "sections", text: "tools:\n  wc: {command: [wc]}\nmcpServers: {fs: {command: npx}}\n", sections: []string{"mcpServers", "tools"}},
		{name: "an empty section", text: "tools:\n"},

		{name: "unknown key", text: "jobs: 1\njobz: 8\n", err: `2:1: unknown key "jobz" (did you mean "jobs"?): a key is the name of a flag, without its dashes`},
		{name: "unknown key far from any", text: "colour: red\n", err: `1:1: unknown key "colour": a key is the name of a flag, without its dashes`},
		{name: "a dashed key", text: "--jobs: 8\n", err: `1:1: unknown key "--jobs" (did you mean "jobs"?)`},
		{name: "awd", text: "awd: /\n", err: "1:1: awd: not a setting: the config file is found through it: give it on the command line"},
		{name: "resume", text: "resume: true\n", err: "1:1: resume: not a setting: it is about one run"},
		{name: "shard", text: "shard: 1/2\n", err: "1:1: shard: not a setting: it is about one run"},
		{name: "refuse", text: "refuse: true\n", err: "1:1: refuse: not a setting: it chooses what one command does"},
		{name: "revoke", text: "revoke: true\n", err: "1:1: revoke: not a setting: it chooses what one command does"},
		{name: "check", text: "check: true\n", err: "1:1: check: not a setting: it chooses what one command does"},
		{name: "force", text: "force: true\n", err: "1:1: force: not a setting: it chooses what one command does"},
		{name: "a mapping value", text: "jobs: {a: 1}\n", err: "1:7: jobs: want a value, not a mapping"},
		{name: "a nested list", text: "staging: [[a]]\n", err: "1:11: staging: a list item must be a single value, not a list"},
		{name: "a list at the top", text: "- jobs: 1\n", err: "1:1: a config file is a mapping of settings (jobs: 8), not a list"},
		{name: "a scalar at the top", text: "jobs\n", err: "1:1: a config file is a mapping of settings (jobs: 8), not a string"},
		{name: "two documents", text: "jobs: 1\n---\njobs: 2\n", err: "2:1: a config file holds one YAML document, not several"},
		{name: "an empty second document", text: "jobs: 1\n---\n", want: []string{"jobs=1"}},
		{name: "a section not a mapping", text: "tools: [wc]\n", err: "1:8: tools: want a mapping of names to declarations, not a list"},
		{name: "an alias", text: "a: &x 1\n", err: `1:1: unknown key "a"`},
		{name: "an anchored value", text: "jobs: &x 1\n", err: "1:7: jobs: want a value, not an anchor or alias"},
		{name: "a duplicate", text: "jobs: 1\njobs: 2\n", err: `2:1: invalid YAML: mapping key "jobs" already defined (first at line 1, column 1)`},
		{name: "bad YAML", text: "jobs: [\n", err: "1:7: invalid YAML: sequence end token ']' not found"},
		{name: "deep nesting", text: "tools: " + strings.Repeat("[", 100) + "\n", err: "1:72: invalid YAML: nesting deeper than 64 levels"},
		{name: "too many tokens", text: "tools: {" + strings.Repeat("a: 1, ", 5000), err: "1:30004: more than 20000 YAML tokens: not a config file"},
		{name: "a long unknown key", text: strings.Repeat("jobs", 10000) + ": 1\n", err: `1:1: unknown key "` + strings.Repeat("jobs", 16) + `"…: a key is`},
		{name: "a key that is a list", text: "[a]: 1\n", err: "1:4: invalid YAML: "},
		{name: "a key that is a mapping", text: "? {a: 1}\n: 1\n", err: "2:1: invalid YAML: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("/x/kesoku.yaml", []byte(tt.text), keys)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), "/x/kesoku.yaml:"+tt.err) {
					t.Fatalf("error = %v, want /x/kesoku.yaml:%s", err, tt.err)
				}
				var (
					ce *Error
					re *RefusedKeyError
				)
				if !errors.As(err, &ce) && !errors.As(err, &re) {
					t.Errorf("error %T is not a *config.Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range f.Settings {
				got = append(got, s.Key+"="+s.Value())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("settings mismatch (-want +got):\n%s", diff)
			}
			var sections []string
			for _, k := range SectionKeys() {
				if f.Sections[k] != nil {
					sections = append(sections, k)
				}
			}
			if diff := cmp.Diff(tt.sections, sections); diff != "" {
				t.Errorf("sections mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseTooLarge: a project's file is read before anyone approved it,
// and the parser is quadratic in some shapes: a large one is refused
// before it is parsed.
func TestParseTooLarge(t *testing.T) {
	t.Parallel()
	_, err := Parse("/x/kesoku.yaml", []byte(strings.Repeat("-\n", MaxFileSize)), keys)
	if err == nil || !strings.Contains(err.Error(), "not a config file") {
		t.Errorf("error = %v, want a refusal of the size", err)
	}
	path := filepath.Join(t.TempDir(), "kesoku.yaml")
	must(t, os.WriteFile(path, []byte("jobs: 1\n"+strings.Repeat("#", MaxFileSize)), 0o644))
	if _, err := ReadFile(path, Found, keys); err == nil || !strings.Contains(err.Error(), "larger than 256 KiB") {
		t.Errorf("ReadFile error = %v, want a refusal of the size", err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// flagSet is a command's flags for the tests.
type flagSet struct {
	fs       *pflag.FlagSet
	jobs     int
	timeout  time.Duration
	output   string
	staging  string
	tools    []string
	quiet    bool
	verbose  bool
	failFast bool
}

func newFlagSet(t *testing.T, args ...string) *flagSet {
	t.Helper()
	f := &flagSet{fs: pflag.NewFlagSet("test", pflag.ContinueOnError)}
	f.fs.IntVarP(&f.jobs, "jobs", "j", 1, "")
	f.fs.DurationVar(&f.timeout, "timeout", 0, "")
	f.fs.StringVarP(&f.output, "output", "o", "", "")
	f.fs.StringVar(&f.staging, "staging", "", "")
	f.fs.StringSliceVar(&f.tools, "tools", nil, "")
	f.fs.BoolVarP(&f.quiet, "quiet", "q", false, "")
	f.fs.BoolVarP(&f.verbose, "verbose", "v", false, "")
	f.fs.BoolVar(&f.failFast, "fail-fast", false, "")
	must(t, f.fs.Parse(args))
	return f
}

// TestApply applies the user's file and a project's to a command's flags.
func TestApply(t *testing.T) {
	t.Parallel()
	user, err := Parse("/home/u/.config/kesoku/config.yaml", []byte("jobs: 2\ntimeout: 30s\nstaging: inputs\nmodel: m\n"), keys)
	must(t, err)
	project, err := Parse("/p/kesoku.yaml", []byte("jobs: 3\noutput: out/r.jsonl\nfail-fast: true\n"), keys)
	must(t, err)
	c := &Config{Files: []*File{user, project}}

	f := newFlagSet(t, "--timeout", "5s")
	applied, err := c.Apply(f.fs)
	must(t, err)
	if f.jobs != 3 || f.timeout != 5*time.Second || f.output != "/p/out/r.jsonl" || f.staging != "/home/u/.config/kesoku/inputs" || !f.failFast {
		t.Errorf("flags after Apply: jobs %d, timeout %v, output %q, staging %q, fail-fast %v", f.jobs, f.timeout, f.output, f.staging, f.failFast)
	}
	for _, name := range []string{"jobs", "output", "staging", "fail-fast"} {
		if !f.fs.Changed(name) {
			t.Errorf("%s set from a file does not count as set", name)
		}
	}
	var got []string
	for _, a := range applied {
		got = append(got, a.String())
	}
	want := []string{
		"jobs: 3 (from /p/kesoku.yaml:1:1, over /home/u/.config/kesoku/config.yaml:1:1)",
		"timeout: from the command line, over /home/u/.config/kesoku/config.yaml:2:1",
		"staging: /home/u/.config/kesoku/inputs (from /home/u/.config/kesoku/config.yaml:3:1)",
		"output: /p/out/r.jsonl (from /p/kesoku.yaml:2:1)",
		"fail-fast: true (from /p/kesoku.yaml:3:1)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("applied mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, err string }{
		{"jobs: [1, 2]\n", "/p/kesoku.yaml:1:7: jobs: want one value, not a list"},
		{"jobs: eight\n", `/p/kesoku.yaml:1:7: jobs: "eight": want a number`},
		{"jobs: 1.5\n", `/p/kesoku.yaml:1:7: jobs: "1.5": want a number`},
		{"timeout: soon\n", `/p/kesoku.yaml:1:10: timeout: "soon": want a duration such as 300ms, 30s or 5m`},
		{"fail-fast: yes\n", `/p/kesoku.yaml:1:12: fail-fast: "yes": want true or false`},
		{"quiet: true\nverbose: true\n", "/p/kesoku.yaml:2:1: verbose: cannot be set with quiet (/p/kesoku.yaml:1:1)"},
	}
	for _, tt := range tests {
		f, err := Parse("/p/kesoku.yaml", []byte(tt.text), keys)
		must(t, err)
		_, err = (&Config{Files: []*File{f}}).Apply(newFlagSet(t).fs, []string{"quiet", "verbose"})
		if err == nil || err.Error() != tt.err {
			t.Errorf("%q: error = %v, want %s", tt.text, err, tt.err)
		}
	}
}

// TestMistakesKeepTheRest: a file whose keys hold mistakes still gives
// its other settings, for their values to be checked as well, so that
// mistakes of both kinds are told at once.
func TestMistakesKeepTheRest(t *testing.T) {
	t.Parallel()
	_, err := Parse("/p/kesoku.yaml", []byte("jobs: eight\ntimeot: 5s\n"), keys)
	var me *MistakesError
	if !errors.As(err, &me) {
		t.Fatalf("Parse: %v, want a *MistakesError", err)
	}
	if len(me.Errs) != 1 || !strings.Contains(me.Errs[0].Error(), `/p/kesoku.yaml:2:1: unknown key "timeot"`) {
		t.Errorf("mistakes %q, want the unknown key", me.Errs)
	}
	_, err = me.Config.Apply(newFlagSet(t).fs)
	if err == nil || err.Error() != `/p/kesoku.yaml:1:7: jobs: "eight": want a number` {
		t.Errorf("Apply of the rest: %v, want the bad value of jobs", err)
	}

	// Load gathers the mistakes of the user's file and the project's.
	dir := t.TempDir()
	userDir, awd := filepath.Join(dir, "user"), filepath.Join(dir, "awd")
	must(t, os.MkdirAll(userDir, 0o755))
	must(t, os.MkdirAll(awd, 0o755))
	must(t, os.WriteFile(filepath.Join(userDir, UserFileName), []byte("jbos: 2\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(awd, "named.yaml"), []byte("jobs: 2\nqiet: true\n"), 0o644))
	_, err = Load(Options{AWD: awd, Named: filepath.Join(awd, "named.yaml"), UserDir: userDir, Keys: keys})
	if !errors.As(err, &me) || len(me.Errs) != 2 || len(me.Config.Files) != 2 {
		t.Fatalf("Load: %v, want both files' mistakes and both files", err)
	}
}

// TestApplyListsAndGroups: a list fills a list flag; a flag of an
// exclusive group is left alone once the command line set any of them.
func TestApplyListsAndGroups(t *testing.T) {
	t.Parallel()
	f, err := Parse("/p/kesoku.yaml", []byte("tools: \nquiet: true\n"), keys)
	must(t, err)
	fs := newFlagSet(t, "-v")
	if _, err := (&Config{Files: []*File{f}}).Apply(fs.fs, []string{"quiet", "verbose"}); err != nil {
		t.Fatal(err)
	}
	if fs.quiet || !fs.verbose {
		t.Errorf("-v on the command line, quiet: true in the file: quiet %v verbose %v", fs.quiet, fs.verbose)
	}
	// A list flag the file may set (tools is a section: use staging's
	// place in a flag set that has a list under another name).
	lf := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var list []string
	lf.StringSliceVar(&list, "model", []string{"default"}, "")
	g, err := Parse("/p/kesoku.yaml", []byte("model: [a, 'b,c']\n"), keys)
	must(t, err)
	if _, err := (&Config{Files: []*File{g}}).Apply(lf); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b,c"}, list); diff != "" {
		t.Errorf("list mismatch (-want +got):\n%s", diff)
	}
}

// TestLoad reads the user's file and the project's, and refuses a found
// file that needs approval until it is approved.
func TestLoad(t *testing.T) {
	t.Parallel()
	userDir, awd := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(userDir, UserFileName), []byte("jobs: 2\nbase-url: http://proxy\n"), 0o644))
	project := filepath.Join(awd, FileName)
	opts := Options{AWD: awd, UserDir: userDir, Keys: keys}

	c, err := Load(opts)
	must(t, err)
	if diff := cmp.Diff([]string{filepath.Join(userDir, UserFileName)}, c.Paths()); diff != "" {
		t.Errorf("no project file: paths mismatch (-want +got):\n%s", diff)
	}

	must(t, os.WriteFile(project, []byte("jobs: 3\n"), 0o644))
	c, err = Load(opts)
	must(t, err)
	if len(c.Files) != 2 || c.Files[1].Origin != Found {
		t.Fatalf("a harmless project file: files %v", c.Paths())
	}

	must(t, os.WriteFile(project, []byte("jobs: 3\noutput: ../outside.txt\nstaging: /\n"), 0o644))
	_, err = Load(opts)
	var ue *UnapprovedError
	if !errors.As(err, &ue) || !ue.ChangedSince.IsZero() {
		t.Fatalf("an unapproved file: error = %v, want an *UnapprovedError never approved", err)
	}
	if want := "it sets output (where records are written) and staging (which directory tools may read besides the AWD)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want it to say %q", err, want)
	}
	f, err := ReadFile(project, Found, keys)
	must(t, err)
	approvals := ApprovalsOf(userDir)
	must(t, approvals.Approve(f))
	if _, err := Load(opts); err != nil {
		t.Fatalf("an approved file: %v", err)
	}

	// A change, even a comment, needs approval again.
	must(t, os.WriteFile(project, []byte("jobs: 3\noutput: ../outside.txt\nstaging: /\n# more\n"), 0o644))
	_, err = Load(opts)
	if !errors.As(err, &ue) || ue.ChangedSince.IsZero() || !strings.Contains(err.Error(), "changed since it was approved on ") {
		t.Fatalf("a changed file: error = %v, want an *UnapprovedError saying it changed", err)
	}

	// The same content at another path is another file.
	other := t.TempDir()
	data, _ := os.ReadFile(project)
	must(t, os.WriteFile(filepath.Join(other, FileName), data, 0o644))
	if _, err := Load(Options{AWD: other, UserDir: userDir, Keys: keys}); !errors.As(err, &ue) {
		t.Errorf("an approved content at another path: error = %v, want an *UnapprovedError", err)
	}

	// Named, it needs no approval.
	if _, err := Load(Options{AWD: awd, Named: project, UserDir: userDir, Keys: keys}); err != nil {
		t.Errorf("a named file: %v", err)
	}
	// Nowhere to record approvals: refused, saying so.
	if _, err := Load(Options{AWD: awd, Keys: keys}); !errors.As(err, &ue) || !ue.NoStore {
		t.Errorf("no user directory: error = %v, want an *UnapprovedError with NoStore", err)
	}

	// Revoked, refused again.
	f, err = ReadFile(project, Found, keys)
	must(t, err)
	must(t, approvals.Approve(f))
	had, err := approvals.Revoke(project)
	must(t, err)
	if !had {
		t.Errorf("Revoke found no approval")
	}
	if _, err := Load(opts); !errors.As(err, &ue) {
		t.Errorf("a revoked file: error = %v, want an *UnapprovedError", err)
	}
}

// TestLoadMissing: a named file must exist; a found one need not.
func TestLoadMissing(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	if _, err := Load(Options{AWD: awd, Named: filepath.Join(awd, "nope.yaml"), Keys: keys}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a named file that is not there: error = %v, want ErrNotExist", err)
	}
	c, err := Load(Options{AWD: awd, UserDir: filepath.Join(awd, "no-such-dir"), Keys: keys})
	if err != nil || len(c.Files) != 0 {
		t.Errorf("no files: %v, %v", c, err)
	}
}

// TestApprovalRecordDamaged: a damaged record approves nothing, and
// approving again mends it.
func TestApprovalRecordDamaged(t *testing.T) {
	t.Parallel()
	userDir, awd := t.TempDir(), t.TempDir()
	project := filepath.Join(awd, FileName)
	must(t, os.WriteFile(project, []byte("base-url: http://x\n"), 0o644))
	f, err := ReadFile(project, Found, keys)
	must(t, err)
	a := ApprovalsOf(userDir)
	must(t, a.Approve(f))
	must(t, os.WriteFile(a.recordPath(project), []byte("{not json"), 0o600))
	if ok, err := a.Approved(f); ok || err != nil {
		t.Errorf("a damaged record: approved %v, %v", ok, err)
	}
	must(t, a.Approve(f))
	if ok, err := a.Approved(f); !ok || err != nil {
		t.Errorf("approved again: approved %v, %v", ok, err)
	}
}

func TestUserDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := UserDir(); got != filepath.Join("/xdg", "kesoku") {
		t.Errorf("UserDir() = %q with XDG_CONFIG_HOME", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative") // ignored, as the XDG spec says
	t.Setenv("HOME", "/home/u")
	if got := UserDir(); got != filepath.Join("/home/u", ".config", "kesoku") {
		t.Errorf("UserDir() = %q without XDG_CONFIG_HOME", got)
	}
}
