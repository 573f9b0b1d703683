package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// secret is what every file outside the workspace holds: no read through
// the workspace may ever return it.
const secret = "SECRET outside the workspace"

// fixture is an AWD, a staging directory and a directory outside both,
// with symbolic links that lead in and out.
type fixture struct {
	awd, staging, outside string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	f := fixture{awd: t.TempDir(), staging: t.TempDir(), outside: t.TempDir()}
	files := map[string]string{
		filepath.Join(f.awd, "a.txt"):            "awd a",
		filepath.Join(f.awd, "sub", "b.txt"):     "awd b",
		filepath.Join(f.staging, "input.txt"):    "staged input",
		filepath.Join(f.staging, "a.txt"):        "staged a",
		filepath.Join(f.outside, "secret"):       secret,
		filepath.Join(f.outside, "dir", "inner"): secret,
	}
	for name, data := range files {
		must(t, os.MkdirAll(filepath.Dir(name), 0o755))
		must(t, os.WriteFile(name, []byte(data), 0o644))
	}
	relOut, err := filepath.Rel(f.awd, f.outside)
	must(t, err)
	links := map[string]string{
		"out-file":     filepath.Join(f.outside, "secret"),
		"out-file-rel": filepath.Join(relOut, "secret"),
		"out-dir":      f.outside,
		"out-dir-rel":  relOut,
		"sub/out-mid":  filepath.Join("..", relOut),
		"in-abs":       filepath.Join(f.awd, "a.txt"),
		"in-abs-dir":   filepath.Join(f.awd, "sub"),
		"in-rel":       "sub/b.txt",
		"sub/up":       "../a.txt",
		"loop1":        "loop2",
		"loop2":        "loop1",
		"abs-loop1":    filepath.Join(f.awd, "abs-loop2"),
		"abs-loop2":    filepath.Join(f.awd, "abs-loop1"),
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(f.awd, name)))
	}
	return f
}

func (f fixture) open(t testing.TB) *Workspace {
	t.Helper()
	w, err := New(f.awd, f.staging)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	tests := []struct {
		name    string
		path    string
		want    string // content, when the open succeeds
		wantErr error  // else an error that errors.Is matches
	}{
		{name: "relative in awd", path: "a.txt", want: "awd a"},
		{name: "awd shadows staging", path: "./a.txt", want: "awd a"},
		{name: "relative in staging", path: "input.txt", want: "staged input"},
		{name: "absolute in awd", path: filepath.Join(f.awd, "sub", "b.txt"), want: "awd b"},
		{name: "absolute in staging", path: filepath.Join(f.staging, "a.txt"), want: "staged a"},
		{name: "dot-dot inside", path: "sub/../a.txt", want: "awd a"},
		{name: "relative link inside", path: "in-rel", want: "awd b"},
		{name: "relative link climbing inside", path: "sub/up", want: "awd a"},
		{name: "absolute link inside", path: "in-abs", want: "awd a"},
		{name: "absolute link to a dir inside", path: "in-abs-dir/b.txt", want: "awd b"},
		{name: "dot-dot out", path: "../secret", wantErr: ErrOutside},
		{name: "dot-dot out deep", path: "sub/../../secret", wantErr: ErrOutside},
		{name: "dot-dot only", path: "..", wantErr: ErrOutside},
		{name: "absolute outside", path: filepath.Join(f.outside, "secret"), wantErr: ErrOutside},
		{name: "absolute root", path: "/", wantErr: ErrOutside},
		{name: "absolute dot-dot out", path: f.awd + "/../" + filepath.Base(f.outside) + "/secret", wantErr: ErrOutside},
		{name: "absolute link to file outside", path: "out-file", wantErr: ErrOutside},
		{name: "relative link to file outside", path: "out-file-rel", wantErr: ErrOutside},
		{name: "absolute link to dir outside", path: "out-dir/secret", wantErr: ErrOutside},
		{name: "relative link to dir outside", path: "out-dir-rel/secret", wantErr: ErrOutside},
		{name: "link in the middle of a path", path: "sub/out-mid/dir/inner", wantErr: ErrOutside},
		{name: "link to dir outside, absolute form", path: filepath.Join(f.awd, "out-dir", "dir", "inner"), wantErr: ErrOutside},
		{name: "empty", path: "", wantErr: ErrBadPath},
		{name: "nul byte", path: "a\x00.txt", wantErr: ErrBadPath},
		{name: "missing", path: "nope.txt", wantErr: fs.ErrNotExist},
		{name: "missing in a missing dir", path: "no/such/file", wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file, err := w.Open(tt.path)
			if tt.wantErr != nil {
				if err == nil {
					data, _ := io.ReadAll(file)
					file.Close()
					t.Fatalf("Open(%q) = file holding %q, want error %v", tt.path, data, tt.wantErr)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Open(%q) error = %v, want %v", tt.path, err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "path "+strconv.Quote(tt.path)) {
					t.Errorf("error %q does not start with the path as given", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q): %v", tt.path, err)
			}
			defer file.Close()
			data, err := io.ReadAll(file)
			must(t, err)
			if diff := cmp.Diff(tt.want, string(data)); diff != "" {
				t.Errorf("Open(%q) content mismatch (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestRefusalMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	tests := []struct {
		path string
		want []string // substrings of the message
	}{
		{"../x", []string{`path "../x" leads outside the working directory`, f.awd}},
		{"out-dir/secret", []string{`path "out-dir/secret" leads outside the working directory`, `symbolic link "out-dir" points to`}},
		{"", []string{`path "" is not a valid path`}},
		{"nope", []string{`path "nope": no such file or directory`}},
	}
	for _, tt := range tests {
		_, err := w.Locate(tt.path)
		if err == nil {
			t.Errorf("Locate(%q) succeeded", tt.path)
			continue
		}
		for _, s := range tt.want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Locate(%q) error %q does not contain %q", tt.path, err, s)
			}
		}
	}
}

func TestIsRefusal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	for path, want := range map[string]bool{"../x": true, "": true, "out-file": true, "nope": false} {
		_, err := w.Locate(path)
		if got := IsRefusal(err); got != want {
			t.Errorf("IsRefusal(Locate(%q) = %v) = %v, want %v", path, err, got, want)
		}
	}
}

func TestLoops(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	for _, path := range []string{"loop1", "abs-loop1"} {
		if _, err := w.Locate(path); err == nil {
			t.Errorf("Locate(%q) of a link cycle succeeded", path)
		}
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	type result struct {
		Display   string
		Abs       string
		InStaging bool
	}
	tests := []struct {
		path string
		want result
	}{
		{".", result{".", f.awd, false}},
		{"sub/", result{"sub", filepath.Join(f.awd, "sub"), false}},
		{"input.txt", result{filepath.Join(f.staging, "input.txt"), filepath.Join(f.staging, "input.txt"), true}},
		{filepath.Join(f.staging, "a.txt"), result{filepath.Join(f.staging, "a.txt"), filepath.Join(f.staging, "a.txt"), true}},
		{"in-abs", result{"a.txt", filepath.Join(f.awd, "a.txt"), false}},
	}
	for _, tt := range tests {
		loc, err := w.Locate(tt.path)
		if err != nil {
			t.Errorf("Locate(%q): %v", tt.path, err)
			continue
		}
		got := result{loc.Display(), loc.Abs(), loc.InStaging()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Locate(%q) mismatch (-want +got):\n%s", tt.path, diff)
		}
	}
}

func TestStatAndReadDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	sub, err := w.Locate("sub")
	must(t, err)
	fi, err := sub.Stat()
	must(t, err)
	if !fi.IsDir() {
		t.Errorf("Stat(sub).IsDir() = false")
	}
	entries, err := sub.ReadDir()
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"b.txt", "out-mid", "up"}, names); diff != "" {
		t.Errorf("ReadDir(sub) mismatch (-want +got):\n%s", diff)
	}
	for _, path := range []string{"out-dir", "sub/out-mid", "../"} {
		if _, err := w.Locate(path); !errors.Is(err, ErrOutside) {
			t.Errorf("Locate(%q) error = %v, want ErrOutside", path, err)
		}
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	loc, err := w.WriteFile("new/deep/c.txt", []byte("one\n"))
	must(t, err)
	if got := loc.Display(); got != "new/deep/c.txt" {
		t.Errorf("Display() = %q, want new/deep/c.txt", got)
	}
	_, err = w.AppendFile(filepath.Join(f.awd, "new", "deep", "c.txt"), []byte("two\n"))
	must(t, err)
	data, err := os.ReadFile(filepath.Join(f.awd, "new", "deep", "c.txt"))
	must(t, err)
	if diff := cmp.Diff("one\ntwo\n", string(data)); diff != "" {
		t.Errorf("written content mismatch (-want +got):\n%s", diff)
	}
	// A write through an absolute link that stays inside reaches its target.
	_, err = w.WriteFile("in-abs", []byte("rewritten"))
	must(t, err)
	data, err = os.ReadFile(filepath.Join(f.awd, "a.txt"))
	must(t, err)
	if string(data) != "rewritten" {
		t.Errorf("a.txt = %q after a write through in-abs, want rewritten", data)
	}
}

func TestWriteRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	tests := []struct {
		path    string
		wantErr error
	}{
		{"../x", ErrOutside},
		{"sub/../../x", ErrOutside},
		{filepath.Join(f.outside, "x"), ErrOutside},
		{"out-file", ErrOutside},
		{"out-file-rel", ErrOutside},
		{"out-dir/x", ErrOutside},
		{"out-dir-rel/x", ErrOutside},
		{"out-dir/newdir/x", ErrOutside},
		{"sub/out-mid/x", ErrOutside},
		{filepath.Join(f.staging, "input.txt"), ErrReadOnly},
		{filepath.Join(f.staging, "new.txt"), ErrReadOnly},
		{"", ErrBadPath},
	}
	for _, tt := range tests {
		if _, err := w.WriteFile(tt.path, []byte("pwned")); !errors.Is(err, tt.wantErr) {
			t.Errorf("WriteFile(%q) error = %v, want %v", tt.path, err, tt.wantErr)
		}
		if _, err := w.AppendFile(tt.path, []byte("pwned")); !errors.Is(err, tt.wantErr) {
			t.Errorf("AppendFile(%q) error = %v, want %v", tt.path, err, tt.wantErr)
		}
	}
	if _, err := w.WriteFile(".", nil); err == nil {
		t.Errorf("WriteFile(.) succeeded")
	}
	assertOutsideIntact(t, f)
	data, err := os.ReadFile(filepath.Join(f.staging, "input.txt"))
	must(t, err)
	if string(data) != "staged input" {
		t.Errorf("staged input changed to %q", data)
	}
}

// assertOutsideIntact fails when anything outside the workspace changed.
func assertOutsideIntact(t testing.TB, f fixture) {
	t.Helper()
	var got []string
	err := filepath.WalkDir(f.outside, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.outside, path)
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if string(data) != secret {
				t.Errorf("%s outside the workspace now holds %q", rel, data)
			}
		}
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	must(t, err)
	if diff := cmp.Diff([]string{".", "dir", "dir/inner", "secret"}, got); diff != "" {
		t.Errorf("outside directory changed (-want +got):\n%s", diff)
	}
}

func TestStagingInsideAWD(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	staging := filepath.Join(awd, ".kesoku", "staging")
	must(t, os.MkdirAll(staging, 0o755))
	must(t, os.WriteFile(filepath.Join(staging, "in.txt"), []byte("in"), 0o644))
	w, err := New(awd, staging)
	must(t, err)
	defer w.Close()
	loc, err := w.Locate("in.txt")
	must(t, err)
	if got := loc.Display(); got != ".kesoku/staging/in.txt" {
		t.Errorf("Display() = %q, want .kesoku/staging/in.txt", got)
	}
	for _, path := range []string{".kesoku/staging/in.txt", ".kesoku/staging/new.txt", filepath.Join(staging, "x")} {
		if _, err := w.WriteFile(path, []byte("x")); !errors.Is(err, ErrReadOnly) {
			t.Errorf("WriteFile(%q) error = %v, want ErrReadOnly", path, err)
		}
	}
}

// TestStagingLinkedFromAWD checks that a symbolic link in the AWD cannot
// make staging writable when staging lies inside the AWD, where os.Root
// alone would follow the link; reading through it stays allowed, and a
// link to another file of the AWD stays writable.
func TestStagingLinkedFromAWD(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	staging := filepath.Join(awd, ".kesoku", "staging")
	must(t, os.MkdirAll(filepath.Join(staging, "dir"), 0o755))
	must(t, os.WriteFile(filepath.Join(staging, "in.txt"), []byte("in"), 0o644))
	must(t, os.WriteFile(filepath.Join(awd, "mine.txt"), []byte("mine"), 0o644))
	for name, target := range map[string]string{
		"to-file":     ".kesoku/staging/in.txt",
		"to-file-abs": filepath.Join(staging, "in.txt"),
		"to-dir":      ".kesoku/staging",
		"to-subdir":   filepath.Join(staging, "dir"),
		"to-new":      ".kesoku/staging/new.txt",
		"to-chain":    "to-file",
		"to-mine":     "mine.txt",
		"kesoku":      ".kesoku",
	} {
		must(t, os.Symlink(target, filepath.Join(awd, name)))
	}
	w, err := New(awd, staging)
	must(t, err)
	defer w.Close()
	for _, path := range []string{"to-file", "to-file-abs", "to-dir/in.txt", "to-dir/new.txt", "to-dir/deep/new.txt",
		"to-subdir/x", "to-new", "to-chain", "kesoku/staging/in.txt", filepath.Join(awd, "to-file")} {
		if _, err := w.WriteFile(path, []byte("x")); !errors.Is(err, ErrReadOnly) {
			t.Errorf("WriteFile(%q) error = %v, want ErrReadOnly", path, err)
		}
		if _, err := w.AppendFile(path, []byte("x")); !errors.Is(err, ErrReadOnly) {
			t.Errorf("AppendFile(%q) error = %v, want ErrReadOnly", path, err)
		}
	}
	got, err := os.ReadFile(filepath.Join(staging, "in.txt"))
	must(t, err)
	if string(got) != "in" {
		t.Errorf("staging's in.txt now holds %q", got)
	}
	for _, name := range []string{"new.txt", "deep", filepath.Join("dir", "x")} {
		if _, err := os.Lstat(filepath.Join(staging, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("staging/%s was created (Lstat error %v)", name, err)
		}
	}
	f, err := w.Open("to-file")
	must(t, err)
	f.Close()
	if _, err := w.WriteFile("to-mine", []byte("changed")); err != nil {
		t.Errorf("WriteFile through a link to a file of the AWD: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(awd, "mine.txt")); string(got) != "changed" {
		t.Errorf("mine.txt holds %q, want the write through the link", got)
	}
}

func TestMissingStaging(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	must(t, os.WriteFile(filepath.Join(awd, "a"), []byte("a"), 0o644))
	w, err := New(awd, filepath.Join(awd, "no-staging"))
	must(t, err)
	defer w.Close()
	if got := w.StagingDir(); got != "" {
		t.Errorf("StagingDir() = %q, want \"\" for a missing staging directory", got)
	}
	if got := len(w.Tops()); got != 1 {
		t.Errorf("len(Tops()) = %d, want 1", got)
	}
	if _, err := w.Locate("a"); err != nil {
		t.Errorf("Locate(a): %v", err)
	}
	if _, err := w.WriteFile(filepath.Join(awd, "no-staging", "x"), nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a write into the missing staging directory: error = %v, want ErrReadOnly", err)
	}
	if _, err := New(filepath.Join(awd, "no-awd"), ""); err == nil {
		t.Errorf("New with a missing AWD succeeded")
	}
}

// TestSymlinkRace swaps a directory for a link that leads out while reads
// and writes run through it: os.Root must never let one through.
func TestSymlinkRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	w := f.open(t)
	flip := filepath.Join(f.awd, "flip")
	must(t, os.MkdirAll(flip, 0o755))
	must(t, os.WriteFile(filepath.Join(flip, "secret"), []byte("inside"), 0o644))
	must(t, os.Symlink(f.outside, filepath.Join(f.awd, "flip-out")))
	must(t, os.Rename(flip, filepath.Join(f.awd, "flip-in")))

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Alternate flip between a real directory inside and a link out.
		for i := 0; !stop.Load(); i++ {
			tmp := filepath.Join(f.awd, "flip.tmp")
			src := "flip-in"
			if i%2 == 1 {
				src = "flip-out"
			}
			os.Remove(tmp)
			if err := os.Symlink(src, tmp); err != nil {
				continue
			}
			os.Rename(tmp, flip)
		}
	}()
	for range 2000 {
		file, err := w.Open("flip/secret")
		if err == nil {
			data, _ := io.ReadAll(file)
			file.Close()
			if string(data) == secret {
				t.Fatalf("read the secret outside the workspace through a racing link")
			}
		}
		w.WriteFile("flip/dir/inner", []byte("pwned"))
	}
	stop.Store(true)
	wg.Wait()
	assertOutsideIntact(t, f)
}

// FuzzResolve feeds random paths to every resolving method: none may panic,
// return a location outside the workspace, read the secret or write
// outside.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "../secret", "/", "..", ".", "sub/../../x", "out-dir/secret", "sub/out-mid/dir/inner",
		"in-abs", "in-abs-dir/../../x", "./././a.txt", "sub//b.txt", "a\x00b", "", "~/x", "\\..\\x",
		"loop1/x", "abs-loop1", "out-dir/..", "out-dir/../a.txt", "in-abs-dir/../out-dir/secret",
	} {
		f.Add(seed, false)
	}
	fx := newFixture(f)
	w, err := New(fx.awd, fx.staging)
	if err != nil {
		f.Fatal(err)
	}
	defer w.Close()
	f.Fuzz(func(t *testing.T, path string, absolute bool) {
		if absolute {
			path = fx.awd + "/" + path
		}
		checkInside := func(what, abs string) {
			if _, ok := within(fx.awd, abs); ok {
				return
			}
			if _, ok := within(fx.staging, abs); ok {
				return
			}
			t.Fatalf("%s(%q) = %q, outside the workspace", what, path, abs)
		}
		if loc, err := w.Locate(path); err == nil {
			checkInside("Locate", loc.Abs())
		}
		if file, err := w.Open(path); err == nil {
			fi, _ := file.Stat()
			if fi != nil && fi.Mode().IsRegular() {
				data, _ := io.ReadAll(file)
				if string(data) == secret {
					t.Fatalf("Open(%q) read the secret", path)
				}
			}
			file.Close()
		}
		if loc, err := w.AppendFile(path, nil); err == nil {
			checkInside("AppendFile", loc.Abs())
		}
		assertOutsideIntact(t, fx)
	})
}
