//go:build unix

package records

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestMergeWithinTheOpenFilesLimit merges more parts than the process
// may open files: merge holds a bounded number open at once. The merge
// runs in a child process (this test binary again) whose limit is
// lowered, so that no other test shares the low limit.
func TestMergeWithinTheOpenFilesLimit(t *testing.T) {
	const limit = 64
	if dir := os.Getenv("KESOKU_TEST_MERGE_DIR"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("KESOKU_TEST_MERGE_PARTS"))
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			t.Fatalf("setrlimit: %v", err)
		}
		parts := make([]string, n)
		for k := range parts {
			parts[k] = filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k+1))
		}
		var out bytes.Buffer
		sum, err := Merge(parts, &out)
		if err != nil {
			t.Fatalf("merge of %d parts under a limit of %d open files: %v", n, limit, err)
		}
		if sum.Records != 3*n {
			t.Fatalf("%d records, want %d", sum.Records, 3*n)
		}
		want := ""
		for p := 1; p <= 3*n; p++ {
			want += rec(fmt.Sprintf("id%d", p), strconv.Itoa(p), p) + "\n"
		}
		if out.String() != want {
			t.Fatalf("merged records out of order:\n%.500s", out.String())
		}
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	n := 4 * limit
	dir := t.TempDir()
	for k := 1; k <= n; k++ {
		var lines []string
		for p := k; p <= 3*n; p += n {
			lines = append(lines, rec(fmt.Sprintf("id%d", p), strconv.Itoa(p), p))
		}
		lines = append(lines, end(k, n, 3*n))
		write(t, dir, fmt.Sprintf("part-%d.jsonl", k), lines...)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMergeWithinTheOpenFilesLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "KESOKU_TEST_MERGE_DIR="+dir, "KESOKU_TEST_MERGE_PARTS="+strconv.Itoa(n))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
