package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 files"}} {
		if got := Count(tc.n, "file", "files"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Word(1, "is", "are"); got != "is" {
		t.Errorf("Word(1) = %q", got)
	}
	if got := Word(3, "is", "are"); got != "are" {
		t.Errorf("Word(3) = %q", got)
	}
}
