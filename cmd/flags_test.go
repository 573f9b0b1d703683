package cmd

import "testing"

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "65536", want: 65536},
		{in: "64KiB", want: 64 << 10},
		{in: "1MiB", want: 1 << 20},
		{in: "1MB", want: 1_000_000},
		{in: "1.5kb", want: 1500},
		{in: "2 GiB", want: 2 << 30},
		{in: "10b", want: 10},
		{in: "1m", want: 1 << 20},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "ten", bad: true},
		{in: "1XB", bad: true},
		{in: "1e30", bad: true},
		{in: "NaN", bad: true},
		{in: "nanKiB", bad: true},
		{in: "inf", bad: true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		1 << 20:    "1MiB",
		20_000_000: "20MB",
		64 << 10:   "64KiB",
		1000:       "1kB",
		1234:       "1234",
		0:          "0",
	} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, back, err)
		}
	}
}
