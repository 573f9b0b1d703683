package cmd

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeValue is a pflag.Value for byte sizes written as bytes or with a unit
// (SPEC §8): 65536, 64KiB, 1MiB, 1MB, 2GB.
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
