// Package workspace confines paths that a model supplies to the agent
// working directory (AWD) and the staging directory. It is a leaf
// package: the file tools and analyze_media both resolve through it.
//
// Every file is reached through an [os.Root] opened on the AWD or on
// staging, so `..`, absolute paths elsewhere and symbolic links that lead
// out are refused by the kernel-backed walk of os.Root, even when the tree
// changes while a call runs. The lexical checks made here beforehand only
// give better messages; they are not what keeps a path inside.
//
// Reading resolves a relative path against the AWD first and then staging,
// taking the first where the file exists; an absolute path is accepted when
// it lies inside either. Writing goes to the AWD only: staging holds the
// inputs handed to the agent, and a tool must not change them. Nor may a
// tool write kesoku's own files: the AWD's .kesoku directory,
// and the files and directories the commands protect when they open the
// workspace — the config files in use, the file records go to, a
// session's transcript. Those are refused under any name that reaches
// them: a symbolic link, a hard link, another case of the same name.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The reasons a path is refused. Tools report a refusal as an invalid
// argument (registry.InvalidArg); [IsRefusal] tells them apart from the
// file system's own errors, which are the tool's failures.
var (
	// ErrOutside is a path that leads outside the AWD and staging: through
	// `..`, as an absolute path elsewhere, or through a symbolic link.
	ErrOutside = errors.New("leads outside the working directory")
	// ErrReadOnly is a path to write that lies in staging, in the AWD's
	// .kesoku directory, where kesoku keeps its own transcripts and saved
	// outputs, or in one of the paths protected when the workspace was
	// opened.
	ErrReadOnly = errors.New("is read-only to tools")
	// ErrBadPath is a path that names no file at all: empty, or holding a
	// NUL byte.
	ErrBadPath = errors.New("is not a valid path")
)

// IsRefusal reports whether err refuses a path (ErrOutside, ErrReadOnly,
// ErrBadPath) rather than reporting a file system failure.
func IsRefusal(err error) bool {
	return errors.Is(err, ErrOutside) || errors.Is(err, ErrReadOnly) || errors.Is(err, ErrBadPath)
}

// Error is an error about one path that a caller supplied. Its message
// starts with the path as given, so that a model sees which argument to
// correct: `path "../x" leads outside the working directory`.
type Error struct {
	// Path is the path as the caller gave it.
	Path string
	// Err is ErrOutside, ErrReadOnly, ErrBadPath, or the file system's
	// error (fs.ErrNotExist and the like match it with errors.Is).
	Err error
	// Detail says more, where there is more to say: which symbolic link
	// led out, where the AWD is.
	Detail string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "path %q", e.Path)
	if IsRefusal(e.Err) {
		b.WriteString(" ")
	} else {
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	if e.Detail != "" {
		b.WriteString(" (")
		b.WriteString(e.Detail)
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxLinks bounds how many symbolic links one resolution rewrites, as the
// kernel bounds a lookup (ELOOP), so that a cycle of links ends.
const maxLinks = 40

// area is one confined directory tree: the AWD or staging.
type area struct {
	// dir is the absolute, clean path the area was opened at; real is dir
	// with its symbolic links evaluated. Absolute paths are accepted under
	// either, so that /tmp/x and /private/tmp/x both work on macOS.
	dir, real string
	root      *os.Root
	// display is the prefix shown to models for paths in the area: "" for
	// the AWD (paths are shown relative to it), the path of staging
	// relative to the AWD when staging is inside it, else staging's
	// absolute path.
	display string
	staging bool
}

// Protected is a file or directory that tools may read but never write:
// one of kesoku's own. A directory protects everything below it.
type Protected struct {
	// Path is absolute, or relative to the current directory. It need not
	// exist: a config file that is not there yet must not be created.
	Path string
	// Why says what the path is, for the refusal a model reads: "it is the
	// file this run writes its records to".
	Why string
}

// guard is a protected path, resolved once when the workspace opens.
type guard struct {
	// dir is the absolute, clean path; real the same with the symbolic
	// links of its existing part evaluated.
	dir, real string
	why       string
	// fi is the file's information when it exists, to recognise it under
	// another name (a hard link, another case); nil otherwise.
	fi fs.FileInfo
}

// Workspace confines paths to an AWD and, where it exists, staging. It
// holds open directory handles: Close it when done. Its methods are safe
// for concurrent use.
type Workspace struct {
	awd *area
	// staging is nil when the staging directory does not exist.
	staging *area
	// stagingDir is the configured staging directory, even when it does
	// not exist, so that writes into it are refused all the same.
	stagingDir string
	// guards are the paths tools may read but never write: .kesoku,
	// staging and the protected paths.
	guards []guard
	// escape is the error os.Root gives for a path that leaves its root.
	// os does not export it, so New captures it from the root itself.
	escape error
}

// New opens the workspace of AWD awd (the current directory when "") and
// staging directory staging ("" for none), in which tools never write the
// protected paths. A staging directory that does not exist is no error:
// paths then resolve against the AWD alone.
func New(awd, staging string, protected ...Protected) (*Workspace, error) {
	if awd == "" {
		awd = "."
	}
	a, err := openArea(awd)
	if err != nil {
		return nil, fmt.Errorf("open working directory: %w", err)
	}
	w := &Workspace{awd: a}
	// Lstat("..") fails before any system call, with the very error os.Root
	// returns for every escape: a reliable way to recognise it.
	if _, err := a.root.Lstat(".."); err != nil {
		w.escape = errors.Unwrap(err)
	}
	if w.escape == nil {
		a.root.Close()
		return nil, errors.New("open working directory: os.Root did not refuse \"..\"")
	}
	if staging != "" {
		dir, err := filepath.Abs(staging)
		if err != nil {
			a.root.Close()
			return nil, fmt.Errorf("open staging directory: %w", err)
		}
		w.stagingDir = dir
		if dir != a.dir {
			s, err := openArea(dir)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				a.root.Close()
				return nil, fmt.Errorf("open staging directory: %w", err)
			default:
				s.staging = true
				s.display = s.dir
				if rel, ok := within(a.dir, s.dir); ok {
					s.display = filepath.ToSlash(rel)
				}
				w.staging = s
			}
		}
	}
	w.guards = append(w.guards, newGuard(LayoutOf(a.dir).Dir(), "it is in .kesoku, where kesoku keeps transcripts and saved outputs"))
	if w.stagingDir != "" {
		w.guards = append(w.guards, newGuard(w.stagingDir, "it is in staging, which holds the inputs handed to the agent"))
	}
	for _, p := range protected {
		dir, err := filepath.Abs(p.Path)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("protect %s: %w", p.Path, err)
		}
		w.guards = append(w.guards, newGuard(dir, p.Why))
	}
	return w, nil
}

func newGuard(dir, why string) guard {
	g := guard{dir: filepath.Clean(dir), why: why}
	g.real = resolveExisting(g.dir)
	if fi, err := os.Stat(g.dir); err == nil {
		g.fi = fi
	}
	return g
}

// covers reports whether the absolute, clean path p is the guarded path
// or lies below it, as written or with its links evaluated (real).
func (g *guard) covers(p, real string) bool {
	for _, d := range []string{g.dir, g.real} {
		for _, q := range []string{p, real} {
			if _, in := within(d, q); in {
				return true
			}
			// A file system that ignores case (macOS, Windows) reaches
			// kesoku.yaml as KESOKU.YAML too.
			if caseInsensitive && withinFold(d, q) {
				return true
			}
		}
	}
	return false
}

// withinFold is within, ignoring case.
func withinFold(dir, path string) bool {
	_, in := within(strings.ToLower(dir), strings.ToLower(path))
	return in
}

func openArea(dir string) (*area, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &area{dir: dir, real: real, root: root}, nil
}

// Close releases the directory handles.
func (w *Workspace) Close() error {
	err := w.awd.root.Close()
	if w.staging != nil {
		err = errors.Join(err, w.staging.root.Close())
	}
	return err
}

// StagingDir returns the staging directory as an absolute path, or "" when
// it does not exist.
func (w *Workspace) StagingDir() string {
	if w.staging == nil {
		return ""
	}
	return w.staging.dir
}

// Location is a path resolved inside one area of the workspace. It is only
// a name: a file reached through it is still opened through the area's
// os.Root, so a link swapped in meanwhile cannot lead out.
type Location struct {
	area *area
	w    *Workspace
	// rel is the clean path relative to the area, "." for its top.
	rel string
}

// InStaging reports whether the location is in staging.
func (l Location) InStaging() bool { return l.area.staging }

// Abs returns the location's absolute path, for consumers that must hand a
// path on. Prefer the Location's own methods to open it.
func (l Location) Abs() string { return filepath.Join(l.area.dir, l.rel) }

// Rel returns the location's slash-separated path relative to its area,
// "." for the area's top: the path to use with FS.
func (l Location) Rel() string { return filepath.ToSlash(l.rel) }

// FS returns the file system of the location's area, confined like every
// other access; walk it from Rel.
func (l Location) FS() fs.FS { return l.area.root.FS() }

// Display returns the path to show a model: relative to the AWD when the
// location is inside it, else absolute. Every file tool accepts it back.
func (l Location) Display() string {
	rel := filepath.ToSlash(l.rel)
	switch {
	case l.area.display == "":
		return rel
	case rel == ".":
		return l.area.display
	case strings.HasSuffix(l.area.display, "/"):
		return l.area.display + rel
	default:
		return l.area.display + "/" + rel
	}
}

// Join returns the location of name, an entry of the directory at l or a
// slash-separated path below it. It does not check name: the location's
// methods do, through the root.
func (l Location) Join(name string) Location {
	l.rel = filepath.Join(l.rel, filepath.FromSlash(name))
	return l
}

// At returns the location of name in l's area: a slash-separated path
// relative to the area's top, as walking FS gives it. Like Join, it leaves
// the checking to the location's methods.
func (l Location) At(name string) Location {
	l.rel = filepath.Clean(filepath.FromSlash(name))
	return l
}

// Open opens the location for reading.
func (l Location) Open() (*os.File, error) {
	_, f, err := follow(l.w, l.Display(), l, openOp)
	return f, err
}

// Stat returns the file information of the location, following symbolic
// links that stay inside.
func (l Location) Stat() (fs.FileInfo, error) {
	_, fi, err := follow(l.w, l.Display(), l, statOp)
	return fi, err
}

// Lstat returns the file information of the location without following a
// final symbolic link.
func (l Location) Lstat() (fs.FileInfo, error) {
	_, fi, err := follow(l.w, l.Display(), l, lstatOp)
	return fi, err
}

func openOp(l Location) (*os.File, error)     { return l.area.root.Open(l.rel) }
func statOp(l Location) (fs.FileInfo, error)  { return l.area.root.Stat(l.rel) }
func lstatOp(l Location) (fs.FileInfo, error) { return l.area.root.Lstat(l.rel) }

// ReadDir reads the directory at the location, sorted by name.
func (l Location) ReadDir() ([]fs.DirEntry, error) {
	f, err := l.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return entries, &Error{Path: l.Display(), Err: sysErr(err)}
	}
	return entries, nil
}

// SameAs reports whether l and m name the same path of the same area.
func (l Location) SameAs(m Location) bool {
	return l.area == m.area && l.rel == m.rel
}

// Tops returns the top of the AWD and, when it exists, of staging: where a
// search that names no path starts.
func (w *Workspace) Tops() []Location {
	tops := []Location{{area: w.awd, w: w, rel: "."}}
	if w.staging != nil {
		tops = append(tops, Location{area: w.staging, w: w, rel: "."})
	}
	return tops
}

// Locate resolves name to an existing file or directory: a relative name
// against the AWD and then staging, the first where it exists; an absolute
// name when it lies in either. Symbolic links are followed while they stay
// inside, whether relative or absolute.
func (w *Workspace) Locate(name string) (Location, error) {
	loc, _, err := w.locate(name)
	return loc, err
}

// Check refuses name when, as written, it is no path or leads outside the
// AWD and staging (.., an absolute path elsewhere), as Locate would,
// without touching the file system: what a call's check says before the
// call. A symbolic link that leads out is found only as the file is
// reached.
func (w *Workspace) Check(name string) error {
	_, err := w.candidates(name)
	return err
}

// locate is Locate, also returning the file information it found.
func (w *Workspace) locate(name string) (Location, fs.FileInfo, error) {
	cands, err := w.candidates(name)
	if err != nil {
		return Location{}, nil, err
	}
	var first error
	for _, c := range cands {
		loc, fi, err := follow(w, name, c, statOp)
		if err == nil {
			return loc, fi, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Location{}, nil, err
		}
		if first == nil {
			first = err
		}
	}
	return Location{}, nil, first
}

// Open opens the file or directory name resolves to (see Locate) for
// reading. Anything else — a FIFO, a socket, a device — is an error:
// opening a FIFO would block until a writer came.
func (w *Workspace) Open(name string) (*os.File, error) {
	loc, fi, err := w.locate(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, &Error{Path: name, Err: notRegular(fi.Mode())}
	}
	_, f, err := follow(w, name, loc, openOp)
	return f, err
}

// WriteFile writes data to the file name in the AWD, replacing what it
// held, creating it and its parent directories as needed. A name in
// staging is refused with ErrReadOnly.
func (w *Workspace) WriteFile(name string, data []byte) (Location, error) {
	return w.write(name, data, os.O_TRUNC)
}

// AppendFile appends data to the file name in the AWD, creating it and its
// parent directories as needed. A name in staging is refused with
// ErrReadOnly.
func (w *Workspace) AppendFile(name string, data []byte) (Location, error) {
	return w.write(name, data, os.O_APPEND)
}

func (w *Workspace) write(name string, data []byte, mode int) (Location, error) {
	loc, err := w.writable(name)
	if err != nil {
		return Location{}, err
	}
	if loc.rel == "." {
		return Location{}, &Error{Path: name, Err: errors.New("is a directory")}
	}
	if g := w.reachesGuarded(loc); g != nil {
		return Location{}, &Error{Path: name, Err: ErrReadOnly, Detail: g.why + ", reached through a symbolic link"}
	}
	// The parents are created first, through the root, so that a link
	// among them that leads out is refused before anything is made.
	if dir := filepath.Dir(loc.rel); dir != "." {
		parent := loc
		parent.rel = dir
		parent, _, err = follow(w, name, parent, func(l Location) (struct{}, error) {
			return struct{}{}, l.area.root.MkdirAll(l.rel, 0o777)
		})
		if err != nil {
			return Location{}, err
		}
		loc.rel = filepath.Join(parent.rel, filepath.Base(loc.rel))
	}
	// A file that is there is checked before it is opened: opening a FIFO
	// for writing would block until a reader came. The open itself does
	// not block either (openNoBlock), should a FIFO be swapped in between,
	// and truncates nothing: what was opened is checked again first.
	if _, fi, err := follow(w, name, loc, statOp); err == nil {
		if err := w.checkWritable(name, fi); err != nil {
			return Location{}, err
		}
	}
	loc, f, err := follow(w, name, loc, func(l Location) (*os.File, error) {
		return l.area.root.OpenFile(l.rel, os.O_WRONLY|os.O_CREATE|openNoBlock|mode&os.O_APPEND, 0o666)
	})
	if err != nil {
		return Location{}, err
	}
	err = w.fill(name, f, data, mode&os.O_TRUNC != 0)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &Error{Path: name, Err: sysErr(cerr)}
	}
	if err != nil {
		return Location{}, err
	}
	return loc, nil
}

// checkWritable refuses a file that tools must not write: anything but a
// regular file, and a guarded file under another name.
func (w *Workspace) checkWritable(name string, fi fs.FileInfo) error {
	if fi.IsDir() {
		return &Error{Path: name, Err: errors.New("is a directory")}
	}
	if !fi.Mode().IsRegular() {
		return &Error{Path: name, Err: notRegular(fi.Mode())}
	}
	if g := w.sameAsGuarded(fi); g != nil {
		return &Error{Path: name, Err: ErrReadOnly, Detail: g.why}
	}
	return nil
}

// notRegular says what a file that is neither a regular file nor a
// directory is.
func notRegular(m fs.FileMode) error {
	kind := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("is not a regular file (it is %s)", kind)
}

// fill checks the opened file f and writes data to it, emptying it first
// when trunc is set.
func (w *Workspace) fill(name string, f *os.File, data []byte, trunc bool) error {
	fi, err := f.Stat()
	if err != nil {
		return &Error{Path: name, Err: sysErr(err)}
	}
	if err := w.checkWritable(name, fi); err != nil {
		return err
	}
	if trunc {
		if err := f.Truncate(0); err != nil {
			return &Error{Path: name, Err: sysErr(err)}
		}
	}
	if _, err := f.Write(data); err != nil {
		return &Error{Path: name, Err: sysErr(err)}
	}
	return nil
}

// writable resolves name for writing: in the AWD, and not in staging.
func (w *Workspace) writable(name string) (Location, error) {
	cands, err := w.candidates(name)
	if err != nil {
		return Location{}, err
	}
	for _, c := range cands {
		if c.area != w.awd {
			continue
		}
		abs := c.Abs()
		for i := range w.guards {
			if w.guards[i].covers(abs, abs) {
				return Location{}, &Error{Path: name, Err: ErrReadOnly, Detail: w.guards[i].why}
			}
		}
		return c, nil
	}
	return Location{}, &Error{Path: name, Err: ErrReadOnly, Detail: "it is in staging, which holds the inputs handed to the agent"}
}

// reachesGuarded returns the guard that the AWD location loc, its symbolic
// links followed, lies in. When a guarded path is inside the AWD (.kesoku
// always; staging by default, .kesoku/staging; an -o file), a link in the
// AWD that points to it stays inside the AWD's root, so os.Root follows
// it: this check keeps it read-only all the same. Links are followed as
// far as they lead; the part of the path that does not exist yet is taken
// as written.
func (w *Workspace) reachesGuarded(loc Location) *guard {
	abs := loc.Abs()
	real := resolveExisting(abs)
	for i := range w.guards {
		if w.guards[i].covers(abs, real) {
			return &w.guards[i]
		}
	}
	return nil
}

// sameAsGuarded returns the guard whose file fi is, under whatever name
// it was reached: a hard link, another case of the name.
func (w *Workspace) sameAsGuarded(fi fs.FileInfo) *guard {
	for i := range w.guards {
		if g := &w.guards[i]; g.fi != nil && os.SameFile(g.fi, fi) {
			return g
		}
	}
	return nil
}

// resolveExisting returns the absolute, clean path p with the symbolic
// links of its longest existing prefix evaluated, a dangling link as its
// last existing element followed by its text, and the rest kept as
// written.
func resolveExisting(p string) string {
	rest := ""
	for range maxLinks {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				p = filepath.Clean(target)
				continue
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	return filepath.Join(p, rest)
}

// candidates returns where name may be, in the order to try: for a
// relative name the AWD and then staging; for an absolute name the areas
// that contain it. It refuses names that lead out lexically.
func (w *Workspace) candidates(name string) ([]Location, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return nil, &Error{Path: name, Err: ErrBadPath}
	}
	var cands []Location
	if filepath.IsAbs(name) {
		abs := filepath.Clean(name)
		for _, a := range w.areas() {
			if rel, ok := a.contains(abs); ok {
				cands = append(cands, Location{area: a, w: w, rel: rel})
			}
		}
		if len(cands) == 0 {
			return nil, &Error{Path: name, Err: ErrOutside, Detail: w.where()}
		}
		return cands, nil
	}
	rel := filepath.Clean(name)
	if escapes(rel) {
		return nil, &Error{Path: name, Err: ErrOutside, Detail: w.where()}
	}
	for _, a := range w.areas() {
		cands = append(cands, Location{area: a, w: w, rel: rel})
	}
	return cands, nil
}

func (w *Workspace) areas() []*area {
	if w.staging == nil {
		return []*area{w.awd}
	}
	return []*area{w.awd, w.staging}
}

// where describes the areas for a refusal, so that a model learns what it
// may name.
func (w *Workspace) where() string {
	if w.staging == nil {
		return "the working directory is " + w.awd.dir
	}
	return "the working directory is " + w.awd.dir + " and staging is " + w.staging.dir
}

// follow runs op on loc. os.Root refuses every symbolic link that is
// absolute or climbs above the root, even one that ends inside; when it
// does, follow rewrites the first link of the path into the path it points
// to, if that is inside the same area, and tries again. The rewrite is
// lexical, as os.Root's own handling of "..", and op still runs through
// the root, so a path changed meanwhile cannot lead out either.
func follow[T any](w *Workspace, name string, loc Location, op func(Location) (T, error)) (Location, T, error) {
	for range maxLinks {
		v, err := op(loc)
		if err == nil {
			return loc, v, nil
		}
		if !errors.Is(err, w.escape) {
			return loc, v, w.pathErr(name, err)
		}
		next, rerr := w.rewriteLink(name, loc)
		if rerr != nil {
			return loc, v, rerr
		}
		loc = next
	}
	var zero T
	return loc, zero, &Error{Path: name, Err: errors.New("too many levels of symbolic links")}
}

// rewriteLink replaces the first symbolic link in loc's path by its target
// when the target lies inside loc's area, and refuses the path otherwise.
func (w *Workspace) rewriteLink(name string, loc Location) (Location, error) {
	parts := strings.Split(loc.rel, string(filepath.Separator))
	for i := range parts {
		prefix := filepath.Join(parts[:i+1]...)
		fi, err := loc.area.root.Lstat(prefix)
		if err != nil {
			break
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, err := loc.area.root.Readlink(prefix)
		if err != nil {
			break
		}
		abs := target
		if !filepath.IsAbs(target) {
			abs = filepath.Join(loc.area.dir, filepath.Dir(prefix), target)
		}
		rel, ok := loc.area.contains(filepath.Clean(abs))
		if !ok {
			return loc, &Error{Path: name, Err: ErrOutside,
				Detail: fmt.Sprintf("symbolic link %q points to %q", loc.area.displayOf(prefix), target)}
		}
		loc.rel = filepath.Join(append([]string{rel}, parts[i+1:]...)...)
		return loc, nil
	}
	return loc, &Error{Path: name, Err: ErrOutside, Detail: "through a symbolic link"}
}

func (a *area) displayOf(rel string) string {
	return Location{area: a, rel: rel}.Display()
}

// contains returns abs relative to the area when it lies inside it.
func (a *area) contains(abs string) (string, bool) {
	if rel, ok := within(a.dir, abs); ok {
		return rel, true
	}
	if a.real != a.dir {
		return within(a.real, abs)
	}
	return "", false
}

// pathErr turns an error from os.Root into an *Error naming the
// path as the caller gave it.
func (w *Workspace) pathErr(name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, w.escape) {
		return &Error{Path: name, Err: ErrOutside, Detail: "through a symbolic link"}
	}
	return &Error{Path: name, Err: sysErr(err)}
}

// sysErr strips the *fs.PathError that os wraps around a system error: its
// operation and root-relative path ("openat x") mean nothing to a model,
// and Error names the path already.
func sysErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// within returns path relative to dir when path is dir or lies below it.
// Both must be absolute and clean.
func within(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || escapes(rel) {
		return "", false
	}
	return rel, true
}

// escapes reports whether the clean relative path rel climbs above its
// starting point.
func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel)
}
