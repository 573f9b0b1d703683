package english

import (
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 files"}} {
		if got := Count(tc.n, "file", "files"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Plural(1, "is", "are"); got != "is" {
		t.Errorf("Plural(1) = %q", got)
	}
	if got := Plural(3, "is", "are"); got != "are" {
		t.Errorf("Plural(3) = %q", got)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1023: "1023 bytes", 1024: "1.0 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB", 1 << 50: "1024.0 TiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
