package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseScript builds release archives with scripts/release.sh, as a
// release is made: the archive of this machine's platform holds a binary
// that says the version stamped in, with the licence, the README and docs/, and
// SHA256SUMS checks every archive. Building for another platform costs a
// whole build: CI runs it (KESOKU_RELEASE_TEST=1), go test ./... does not.
func TestReleaseScript(t *testing.T) {
	if os.Getenv("KESOKU_RELEASE_TEST") == "" {
		t.Skip("builds kesoku twice: set KESOKU_RELEASE_TEST=1 (CI does)")
	}
	dist := t.TempDir()
	host := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("scripts/release.sh", "v1.2.3-rc.1", host, "windows/arm64")
	cmd.Env = append(os.Environ(), "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}

	sums, err := os.Open(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer sums.Close()
	var archives []string
	sc := bufio.NewScanner(sums)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: %q is not a sha256sum line", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: the checksum does not match", name)
		}
		archives = append(archives, name)
	}
	hostArchive := "kesoku_1.2.3-rc.1_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	want := []string{hostArchive, "kesoku_1.2.3-rc.1_windows_arm64.zip"}
	if strings.Join(archives, " ") != strings.Join(want, " ") {
		t.Fatalf("SHA256SUMS lists %q, want %q", archives, want)
	}

	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dist, hostArchive), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	dir := filepath.Join(unpacked, strings.TrimSuffix(hostArchive, ".tar.gz"))
	for _, f := range []string{"LICENSE", "README.md", "CHANGELOG.md", "docs/command-tools.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the archive lacks %s", f)
		}
	}
	out, err := exec.Command(filepath.Join(dir, "kesoku"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "kesoku v1.2.3-rc.1") {
		t.Errorf("kesoku --version = %q, want the version stamped in", out)
	}

	// A version that is not one is refused before anything is built.
	bad := exec.Command("scripts/release.sh", "1.2")
	bad.Env = cmd.Env
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "semantic version") {
		t.Errorf("release.sh 1.2: %v, %s; want refused", err, out)
	}
}
