package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Applied is what became of one setting for a command's flags, for -v.
type Applied struct {
	// Setting is the winning setting: the project's over the user's.
	Setting *Setting
	// Over is the user's setting that Setting replaced, nil when none.
	Over *Setting
	// CommandLine says the command line set the flag, so that the setting
	// was left unused.
	CommandLine bool
	// Value is the value given to the flag (a relative path resolved).
	Value string
}

func (a Applied) String() string {
	if a.CommandLine {
		return fmt.Sprintf("%s: from the command line, over %s", a.Setting.Key, a.Setting.KeyPos)
	}
	s := fmt.Sprintf("%s: %s (from %s", a.Setting.Key, a.Value, a.Setting.KeyPos)
	if a.Over != nil {
		s += fmt.Sprintf(", over %s", a.Over.KeyPos)
	}
	return s + ")"
}

// CommandLineOnly is the pflag annotation of a flag that the config files
// never set: one whose name another command uses for something else (tools
// schema's --format is a schema format, run's a request file format), so
// that one key cannot mean two things.
const CommandLineOnly = "kesoku-command-line-only"

// Apply gives every flag of fs that the command line left unset its value
// from the config files; the flag then counts as set (Changed). Keys of
// flags fs does not have, or has as CommandLineOnly, are for other
// commands and left alone. Flags of
// one exclusive group (-q and -v) are left alone, all of them, once the
// command line set one; and the files may set only one of them. A value
// the flag refuses is an *Error at the value's place.
func (c *Config) Apply(fs *pflag.FlagSet, exclusive ...[]string) ([]Applied, error) {
	win, over := c.settings()
	// What the command line set, before the files set anything.
	cmdline := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { cmdline[f.Name] = true })
	var applied []Applied
	var errs []error
	fromFiles := map[string]*Setting{}
	for _, s := range win {
		f := fs.Lookup(s.Key)
		if f == nil || f.Annotations[CommandLineOnly] != nil {
			continue
		}
		a := Applied{Setting: s, Over: over[s]}
		if cmdline[s.Key] {
			a.CommandLine = true
			applied = append(applied, a)
			continue
		}
		if groupSet(cmdline, exclusive, s.Key) {
			continue
		}
		for _, g := range exclusive {
			if !slices.Contains(g, s.Key) {
				continue
			}
			for _, other := range g {
				if o := fromFiles[other]; o != nil {
					errs = append(errs, &Error{Pos: s.KeyPos, Msg: fmt.Sprintf("%s: cannot be set with %s (%s)", s.Key, other, o.KeyPos)})
				}
			}
		}
		fromFiles[s.Key] = s
		values := s.resolved()
		if err := set(f, values, s.List); err != nil {
			// Every value refused is told, not only the first.
			errs = append(errs, &Error{Pos: s.Pos, Msg: fmt.Sprintf("%s: %s", s.Key, valueErr(f, s, err))})
			continue
		}
		a.Value = (&Setting{Values: values, List: s.List}).Value()
		applied = append(applied, a)
	}
	if len(errs) > 0 {
		return nil, JoinByPlace(errs...)
	}
	return applied, nil
}

// resolvePath is the one rule for paths in a config file: relative to the
// file's own directory, so that a file means the same wherever kesoku is
// run from. "-" (standard output) stays as it is.
func resolvePath(f *File, v string) string {
	if v == "" || v == "-" || filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(filepath.Dir(f.Path), v)
}

// groupSet reports whether set holds a flag of an exclusive group that
// holds key.
func groupSet(set map[string]bool, groups [][]string, key string) bool {
	for _, g := range groups {
		if slices.Contains(g, key) && slices.ContainsFunc(g, func(name string) bool { return set[name] }) {
			return true
		}
	}
	return false
}

// set gives f its values, as the command line would. (FlagSet.Set would
// wrap the flag's error in words about the command line.)
func set(f *pflag.Flag, values []string, list bool) error {
	var err error
	if list {
		sv, ok := f.Value.(pflag.SliceValue)
		if !ok {
			return errWantOne
		}
		err = sv.Replace(values)
	} else {
		err = f.Value.Set(values[0])
	}
	if err == nil {
		f.Changed = true
	}
	return err
}

var errWantOne = errors.New("want one value, not a list")

// valueErr says why the flag refused the setting's value, in the words of
// the config file rather than those of strconv.
func valueErr(f *pflag.Flag, s *Setting, err error) string {
	if errors.Is(err, errWantOne) {
		return err.Error()
	}
	var ne *strconv.NumError
	switch {
	case f.Value.Type() == "bool":
		return fmt.Sprintf("%q: want true or false", s.Value())
	case f.Value.Type() == "duration" && strings.HasPrefix(err.Error(), "time: "):
		// pflag's own duration, which says no more than time.ParseDuration;
		// a flag of kesoku's says its bounds itself.
		return fmt.Sprintf("%q: want a duration such as 300ms, 30s or 5m", s.Value())
	case errors.As(err, &ne):
		return fmt.Sprintf("%q: want a number", s.Value())
	}
	return fmt.Sprintf("%q: %v", s.Value(), err)
}
