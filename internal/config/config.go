// Package config owns kesoku's config files: the user's own and a
// project's.
//
// The user's own ($XDG_CONFIG_HOME/kesoku/config.yaml) serves every
// directory; a project's (kesoku.yaml in the AWD, or the file --config
// names) adds to it. It parses them with a position for every key, checks every
// key (an unknown one is an error with "did you mean"), applies them to a
// command's flags under one rule for relative paths, and keeps the record
// of the project files the user approved: a kesoku.yaml found in
// a directory is not consent, so one that moves data or keys, or starts
// programs, is loaded only once approved, as direnv does.
//
// A file is a YAML mapping. Most keys are flag names and give that flag's
// default (`jobs: 8`, `model: gemini-2.5-flash`); a few are sections of
// their own (`tools:`, `mcpServers:`), which the tool sources read.
package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// FileName is the name of a project's config file, looked for in the AWD.
const FileName = "kesoku.yaml"

// UserFileName is the name of the user's config file in UserDir.
const UserFileName = "config.yaml"

// Origin says how a config file came to be read, which decides whether it
// needs the user's approval.
type Origin int

// The origins.
const (
	// User is the user's own config file: theirs, so approved.
	User Origin = iota
	// Found is a kesoku.yaml found in the AWD: not consent. It needs the
	// user's approval when it sets anything consequential.
	Found
	// Named is a file named with --config: approved by being named.
	Named
)

// Error is a mistake in a config file, at a place in it.
type Error struct {
	Pos yamlpos.Pos
	Msg string
	// Snippet, for a file that is no YAML, is the line at Pos with a
	// caret under the column (yamlpos.Snippet); "" otherwise.
	Snippet string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// MistakesError is the mistakes in the keys of config files: keys no flag
// has, keys no file may set, sections that are wrong. Config holds what
// the files set besides, so that their values can be checked as well and
// every mistake of both kinds told at once; it is for that check alone.
type MistakesError struct {
	Config *Config
	// Errs are the mistakes, in the order of their places.
	Errs []error
}

func (e *MistakesError) Error() string   { return errors.Join(e.Errs...).Error() }
func (e *MistakesError) Unwrap() []error { return e.Errs }

// mistakes flattens errs, in the order of their places, each once.
func mistakes(errs ...error) []error {
	err := JoinByPlace(errs...)
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// Refusal says why a config file cannot set a key at all.
type Refusal int

// The reasons a key is refused.
const (
	// FindsTheFile: the key says where the config file is found (awd,
	// config).
	FindsTheFile Refusal = iota + 1
	// OneRun: the key is about one run (resume).
	OneRun
	// NoSetting: the key asks something of kesoku, it sets nothing (help).
	NoSetting
	// InPermissions: the key is a flag of rules (allow, ask, deny), which
	// a config file writes under permissions:.
	InPermissions
	// OneAction: the key chooses what one command does (approve's
	// refuse, trust's revoke, gen's check, init's force): a file setting
	// it would turn the command into another whenever it is found.
	OneAction
)

// RefusedKeyError says a config file sets a key that no config file may
// set, at Pos.
type RefusedKeyError struct {
	Pos yamlpos.Pos
	Key string
	Why Refusal
}

func (e *RefusedKeyError) Error() string {
	msg := e.Pos.String() + ": " + e.Key + ": not a setting"
	switch e.Why {
	case FindsTheFile:
		msg += ": the config file is found through it: give it on the command line"
	case OneRun:
		msg += ": it is about one run: give it on the command line"
	case OneAction:
		msg += ": it chooses what one command does: give it on the command line"
	case InPermissions:
		msg += ": a config file's rules go under permissions: (permissions: {" + e.Key + ": [RULE...]})"
	}
	return msg
}

// ServersFileError says a file of MCP servers (one the user named, or
// one a config file names) could not be read.
type ServersFileError struct {
	Path string
	Err  error
}

func (e *ServersFileError) Error() string { return "servers file " + e.Path + ": " + e.Err.Error() }
func (e *ServersFileError) Unwrap() error { return e.Err }

// Options say which config files to read.
type Options struct {
	// AWD is the agent working directory, where kesoku.yaml is looked
	// for.
	AWD string
	// Named is the file --config names, "" for none. It is read instead
	// of the AWD's kesoku.yaml, and must exist.
	Named string
	// UserDir is the user's config directory (see UserDir), "" for none:
	// its config.yaml is read first, and its approvals decide whether a
	// kesoku.yaml found in the AWD may be loaded.
	UserDir string
	// Keys are the flag names a file may set: every flag of every
	// command. Anything else, but the sections, is an unknown key.
	Keys []string
	// Approving reads the file Named as a found file is read, with the
	// files it names, without asking for its approval: what kesoku trust
	// checks before it approves the file.
	Approving bool
}

// Config is the config files in use, the user's first, and their
// settings merged: a project's setting wins over the user's.
type Config struct {
	// Files are the files read, the user's first; none when there are
	// none.
	Files []*File
}

// Load reads the user's config file and the project's, checks every key
// (mistakes in keys are a *MistakesError, whatever the file), and refuses (with an *UnapprovedError) a kesoku.yaml found in the AWD
// that sets something consequential without the user's approval.
func Load(opts Options) (*Config, error) {
	c := &Config{}
	// Mistakes in the keys of the user's file do not stop the project's
	// from being read: every mistake is told at once.
	var keyErrs []error
	if opts.UserDir != "" {
		f, err := ReadFile(filepath.Join(opts.UserDir, UserFileName), User, opts.Keys)
		var me *MistakesError
		switch {
		case errors.Is(err, os.ErrNotExist):
		case errors.As(err, &me):
			keyErrs = append(keyErrs, me.Errs...)
			c.Files = append(c.Files, me.Config.Files...)
		case err != nil:
			return nil, err
		default:
			c.Files = append(c.Files, f)
		}
	}
	path, origin := opts.Named, Named
	switch {
	case path == "":
		path, origin = filepath.Join(opts.AWD, FileName), Found
	case opts.Approving:
		origin = Found
	}
	f, err := ReadFile(path, origin, opts.Keys)
	var me *MistakesError
	switch {
	case errors.Is(err, os.ErrNotExist) && opts.Named == "":
		f = nil
	case errors.As(err, &me):
		// Told before any question of approval, as a file that is no
		// YAML is: a file is fixed before it is approved.
		keyErrs = append(keyErrs, me.Errs...)
		c.Files = append(c.Files, me.Config.Files...)
		f = nil
	case err != nil:
		return nil, err
	}
	if len(keyErrs) > 0 {
		return nil, &MistakesError{Config: c, Errs: mistakes(keyErrs...)}
	}
	if f == nil {
		return c, nil
	}
	switch {
	case opts.Approving:
		if err := f.NamedErr(); err != nil {
			return nil, err
		}
	case origin == Found:
		if err := (Approvals{Dir: approvalsDir(opts.UserDir)}).Require(f); err != nil {
			return nil, err
		}
	}
	c.Files = append(c.Files, f)
	return c, nil
}

// Project is the project's file in use (a kesoku.yaml found, or the file
// --config names), nil when there is none.
func (c *Config) Project() *File {
	if n := len(c.Files); n > 0 && c.Files[n-1].Origin != User {
		return c.Files[n-1]
	}
	return nil
}

// Paths are the paths of the files in use.
func (c *Config) Paths() []string {
	paths := make([]string, len(c.Files))
	for i, f := range c.Files {
		paths[i] = f.Path
	}
	return paths
}

// ReadServers is the package's ReadServers, but for a file that a found
// config file names (mcp-config): its content is the one read, checked
// and approved with that file, however the file changed since.
func (c *Config) ReadServers(path string) (*File, error) {
	if c != nil {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, &ServersFileError{Path: path, Err: err}
		}
		for _, f := range c.Files {
			for _, n := range f.Named {
				if n.Path == abs {
					return ParseServers(abs, n.data)
				}
			}
		}
	}
	return ReadServers(path)
}

// Sections returns the sections named key of the files in use, the
// user's first: what the tool sources read (`tools:`, `mcpServers:`).
func (c *Config) Sections(key string) []*Section {
	var out []*Section
	for _, f := range c.Files {
		if s := f.Sections[key]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

// settings returns the winning setting of each key, in the order the
// files give them, and for each the user's setting it replaced.
func (c *Config) settings() (win []*Setting, over map[*Setting]*Setting) {
	over = map[*Setting]*Setting{}
	byKey := map[string]int{}
	for _, f := range c.Files {
		for _, s := range f.Settings {
			if i, ok := byKey[s.Key]; ok {
				over[s] = win[i]
				win[i] = s
				continue
			}
			byKey[s.Key] = len(win)
			win = append(win, s)
		}
	}
	return win, over
}

// UserDir returns the user's kesoku config directory:
// $XDG_CONFIG_HOME/kesoku, or ~/.config/kesoku; "" when there is no home
// directory to put it in. The XDG rule holds on every system, as the
// README documents the user's config file there.
func UserDir() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "kesoku")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "kesoku")
}

// sortedKeys returns the names a file may use, for suggestions.
func sortedKeys(keys []string) []string {
	all := slices.Concat(keys, SectionKeys())
	slices.Sort(all)
	return slices.Compact(all)
}

// describe lists keys for a message: "a, b and c".
func describe(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
