package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/request"
)

// sizeValue is a pflag.Value for byte sizes written as bytes or with a unit
// (decimal or binary): 65536, 64KiB, 1MiB, 1MB, 2GB.
type sizeValue int64

func (s *sizeValue) String() string { return formatSize(int64(*s)) }

// Type names the value in --help.
func (s *sizeValue) Type() string { return "size" }

// Set parses a size.
func (s *sizeValue) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeValue(n)
	return nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	// Longest suffixes first, so that "KiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

func parseSize(v string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0) { // NaN too
		return 0, fmt.Errorf("invalid size %q: want bytes or a number with a unit (65536, 64KiB, 1MiB, 1MB)", v)
	}
	n := f * float64(mult)
	if n > 1<<62 {
		return 0, fmt.Errorf("invalid size %q: too large", v)
	}
	return int64(n), nil
}

func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1 << 10}, {"kB", 1e3}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// A numeric flag is bounded: --jobs 4294967296 once ran out of
// memory and 9223372036854775807 panicked in makechan. Every number,
// duration and size a flag takes is checked against its bounds when it is
// set, so that the command line and a config file are refused alike, as
// bad usage, and --help states the bounds. TestNumericFlagsBounded keeps
// every numeric flag one of these.

// numberKind says how a bounded flag's values are written.
type numberKind[T int | int64 | float64 | time.Duration] struct {
	// typ names the value in --help.
	typ string
	// what names the value in errors: "a whole number".
	what   string
	parse  func(string) (T, error)
	format func(T) string
}

var (
	intKind = numberKind[int]{typ: "int", what: "a whole number",
		parse: func(s string) (int, error) {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			return int(n), err
		},
		format: strconv.Itoa}
	durationKind = numberKind[time.Duration]{typ: "duration", what: "a duration (300ms, 30s, 5m, 1h)",
		parse:  time.ParseDuration,
		format: formatDuration}
	sizeKind = numberKind[int64]{typ: "size", what: "a size (65536, 64KiB, 1MiB, 1MB)",
		parse:  parseSize,
		format: formatSize}
	rateKind = numberKind[float64]{typ: "rate", what: "a fraction (0.8)",
		parse:  func(s string) (float64, error) { return strconv.ParseFloat(strings.TrimSpace(s), 64) },
		format: func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }}
	dollarsKind = numberKind[float64]{typ: "dollars", what: "an amount in US dollars (0.50)",
		parse: func(s string) (float64, error) {
			return strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
		},
		format: func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }}
)

// boundedValue is a pflag.Value for a number within [min, max].
type boundedValue[T int | int64 | float64 | time.Duration] struct {
	p        *T
	min, max T
	kind     numberKind[T]
}

func (v *boundedValue[T]) String() string { return v.kind.format(*v.p) }

// Type names the value in --help.
func (v *boundedValue[T]) Type() string { return v.kind.typ }

// Set parses s and checks it against the bounds.
func (v *boundedValue[T]) Set(s string) error {
	n, err := v.kind.parse(s)
	if err != nil || n != n || n < v.min || n > v.max { // n != n: NaN
		// Without the value: the command line and the config file each
		// say what it was.
		return fmt.Errorf("want %s from %s to %s", v.kind.what, v.kind.format(v.min), v.kind.format(v.max))
	}
	*v.p = n
	return nil
}

// bounds is the bounds as --help shows them.
func (v *boundedValue[T]) bounds() string {
	return fmt.Sprintf("%s to %s", v.kind.format(v.min), v.kind.format(v.max))
}

// boundedVar adds a bounded numeric flag to fs, its bounds appended to
// its usage.
func boundedVar[T int | int64 | float64 | time.Duration](fs *pflag.FlagSet, p *T, kind numberKind[T], name, short string, def, min, max T, usage string) {
	*p = def
	v := &boundedValue[T]{p: p, min: min, max: max, kind: kind}
	fs.VarP(v, name, short, usage+" ("+v.bounds()+")")
}

// intVar adds an integer flag bounded to [min, max].
func intVar(fs *pflag.FlagSet, p *int, name, short string, def, min, max int, usage string) {
	boundedVar(fs, p, intKind, name, short, def, min, max, usage)
}

// durationVar adds a duration flag bounded to [min, max].
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, def, min, max time.Duration, usage string) {
	boundedVar(fs, p, durationKind, name, "", def, min, max, usage)
}

// sizeVar adds a size flag bounded to [min, max].
func sizeVar(fs *pflag.FlagSet, p *sizeValue, name string, def, min, max int64, usage string) {
	boundedVar(fs, (*int64)(p), sizeKind, name, "", def, min, max, usage)
}

// rateVar adds a flag of a fraction, such as a pass rate, bounded to
// [min, max].
func rateVar(fs *pflag.FlagSet, p *float64, name string, def, min, max float64, usage string) {
	boundedVar(fs, p, rateKind, name, "", def, min, max, usage)
}

// dollarsVar adds a flag of an amount in US dollars bounded to [min, max].
func dollarsVar(fs *pflag.FlagSet, p *float64, name string, def, min, max float64, usage string) {
	boundedVar(fs, p, dollarsKind, name, "", def, min, max, usage)
}

// formatDuration writes d as a person would: 168h, 5s, 1h30m, 300ms.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0" // as --help leaves a zero default unsaid
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// shardValue is a pflag.Value for --shard K/N: the K-th of N shares of a
// run's requests. Its zero value is the whole run.
type shardValue request.Shard

func (s *shardValue) String() string {
	if request.Shard(*s).Whole() {
		return ""
	}
	return request.Shard(*s).String()
}

// Type names the value in --help.
func (s *shardValue) Type() string { return "K/N" }

// Set parses K/N.
func (s *shardValue) Set(v string) error {
	sh, err := request.ParseShard(v)
	if err != nil {
		return err
	}
	*s = shardValue(sh)
	return nil
}

// shardBounds are the values --shard takes, as every --help states them.
var shardBounds = fmt.Sprintf("K from 1 to N, N up to %d", request.MaxShards)

// bounds are the values --shard takes: a bounded flag says them, which
// TestNumericFlagsBounded holds every such flag's help to.
func (s *shardValue) bounds() string { return shardBounds }

// shardUsage is the help of run's --shard.
var shardUsage = "run the K-th share (" + shardBounds + ")"

// checkedValue is a pflag.Value for a string that can be wrong (a URL, a
// provider's name, an address): it is checked when it is set, so that the
// command line and a config file are refused alike, at once, and a config
// file's value by every command (checkSettings), not only by those that
// use it. "" is the flag's unset value, never checked.
type checkedValue struct {
	p     *string
	check func(string) error
}

func (v *checkedValue) String() string { return *v.p }

// Type names the value in --help, as pflag names a plain string flag.
func (v *checkedValue) Type() string { return "string" }

// Set checks s. The error leaves s unsaid: the command line and the
// config file each say what it was.
func (v *checkedValue) Set(s string) error {
	if s != "" {
		if err := v.check(s); err != nil {
			return err
		}
	}
	*v.p = s
	return nil
}

// checkedVar adds a string flag to fs whose values check accepts.
func checkedVar(fs *pflag.FlagSet, p *string, name, short, usage string, check func(string) error) {
	fs.VarP(&checkedValue{p: p, check: check}, name, short, usage)
}

// The checks of the string flags that can be wrong.

// checkModelName refuses what no provider names a model: blanks and
// control characters ("gemini 2.5 flash").
func checkModelName(s string) error {
	if strings.TrimSpace(s) == "" || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return errors.New("want a model's name, e.g. gemini-2.5-flash, without spaces")
	}
	return nil
}

// checkProvider refuses a name that is no provider's.
func checkProvider(s string) error {
	var unknown *provider.UnknownProviderError
	if err := provider.CheckName(s); !errors.As(err, &unknown) {
		return err
	}
	msg := "want " + orList(unknown.Known)
	if guess := english.Suggest(s, unknown.Known); guess != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", guess)
	}
	return errors.New(msg)
}

// checkRequestFormat refuses a request format that is none.
func checkRequestFormat(s string) error {
	if _, err := request.ParseFormat(s); err != nil {
		return errors.New("want yaml, json or jsonl")
	}
	return nil
}

// checkVarName refuses what cannot name an environment variable.
func checkVarName(s string) error {
	for i, r := range s {
		if r != '_' && !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z') && (i == 0 || !('0' <= r && r <= '9')) {
			return errors.New("want the name of an environment variable, e.g. KESOKU_MCP_TOKEN")
		}
	}
	return nil
}

// checkedArray is checkedValue for a repeatable flag (--ignore), a list
// in a config file: each value is checked when it is given.
type checkedArray struct {
	p     *[]string
	check func(string) error
}

func (v *checkedArray) String() string { return "[" + strings.Join(*v.p, ",") + "]" }

// Type names the value in --help, as pflag names a repeatable string flag.
func (v *checkedArray) Type() string { return "stringArray" }

// Set checks s and adds it, as each --flag VALUE on a command line does.
func (v *checkedArray) Set(s string) error { return v.Append(s) }

// Append checks s and adds it.
func (v *checkedArray) Append(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = append(*v.p, s)
	return nil
}

// Replace checks every value of vals and, when all are good, takes them in
// place of those given so far (a config file's list).
func (v *checkedArray) Replace(vals []string) error {
	for _, s := range vals {
		if err := v.check(s); err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
	}
	*v.p = slices.Clone(vals)
	return nil
}

// GetSlice returns the values given.
func (v *checkedArray) GetSlice() []string { return slices.Clone(*v.p) }

// checkedArrayVar adds a repeatable string flag to fs whose values check
// accepts.
func checkedArrayVar(fs *pflag.FlagSet, p *[]string, name, usage string, check func(string) error) {
	fs.Var(&checkedArray{p: p, check: check}, name, usage)
}
