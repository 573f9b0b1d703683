package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// ApprovalsDirName is the directory of UserDir that holds the approvals.
const ApprovalsDirName = "trusted"

func approvalsDir(userDir string) string {
	if userDir == "" {
		return ""
	}
	return filepath.Join(userDir, ApprovalsDirName)
}

// Approvals records which project config files the user approved, as
// direnv's allow list does: one small file per approved path, named by
// the SHA-256 of the path, holding the path, the SHA-256 of the content
// approved, and those of the files it names (mcp-config's). A file is
// approved at one place with one content: the same bytes elsewhere mean
// other things (relative paths, the working directory), and a change to
// it, or to a file it names, needs approval again. One file per path
// keeps concurrent approvals of different files from losing each other.
type Approvals struct {
	// Dir is where the records are: $XDG_CONFIG_HOME/kesoku/trusted. ""
	// means there is nowhere to keep approvals: nothing is approved.
	Dir string
}

// ApprovalsOf returns the approvals kept in the user's config directory.
func ApprovalsOf(userDir string) Approvals { return Approvals{Dir: approvalsDir(userDir)} }

// approval is one record.
type approval struct {
	// Path is the file's path as it was found, absolute, no link
	// resolved; Place is where that is on disk (see placeOf). A record
	// written before Place was kept has none: its Path was resolved.
	Path       string     `json:"path"`
	Place      string     `json:"place,omitempty"`
	SHA256     string     `json:"sha256"`
	Named      []namedSum `json:"named,omitempty"`
	ApprovedAt time.Time  `json:"approved_at"`
}

// namedSum is a file the approved config names, with the content
// approved.
type namedSum struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// placeOf is where the file at path (absolute) is on disk: its directory
// with every symbolic link resolved, joined with its own name. A file is
// approved at its path, as found, since its relative paths and the
// working directory start there: a link to an approved file, to its
// directory, or to a directory above it, is another path and needs its
// own approval. Its place is recorded too, so that a link on the path
// that later leads to another directory loses the approval. The file's
// own name is not resolved: the bytes it leads to are those hashed, and
// where they lie does not change what they mean.
func placeOf(path string) string {
	dir := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(path))
}

func (a Approvals) recordPath(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(a.Dir, hex.EncodeToString(sum[:])+".json")
}

// Approve records f's content, at its path, as approved, with the content
// of the files it names.
func (a Approvals) Approve(f *File) error {
	if a.Dir == "" {
		return errors.New("no config directory to record the approval in: set HOME or XDG_CONFIG_HOME")
	}
	if err := f.NamedErr(); err != nil {
		return err
	}
	if err := os.MkdirAll(a.Dir, 0o700); err != nil {
		return fmt.Errorf("record the approval: %w", err)
	}
	rec := approval{Path: f.Path, Place: placeOf(f.Path), SHA256: f.Sum, ApprovedAt: time.Now().UTC().Truncate(time.Second)}
	for _, n := range f.Named {
		rec.Named = append(rec.Named, namedSum{Path: n.Path, SHA256: n.Sum})
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(a.recordPath(f.Path), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the approval: %w", err)
	}
	return nil
}

// Revoke forgets the approval of the file at path, reporting whether
// there was one.
func (a Approvals) Revoke(path string) (bool, error) {
	if a.Dir == "" {
		return false, nil
	}
	removed, err := atomicfile.Remove(a.recordPath(path))
	if err != nil {
		return false, fmt.Errorf("revoke the approval: %w", err)
	}
	return removed, nil
}

// lookup returns the approval recorded for f's path, nil when none.
func (a Approvals) lookup(f *File) (*approval, error) {
	if a.Dir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(a.recordPath(f.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the approvals: %w", err)
	}
	var rec approval
	if err := json.Unmarshal(data, &rec); err != nil || rec.Path != f.Path {
		// A damaged record approves nothing; approving again rewrites it.
		return nil, nil
	}
	if rec.Place == "" {
		rec.Place = rec.Path
	}
	return &rec, nil
}

// changedNamed returns the files f names whose content is not the one
// approved with it.
func (rec *approval) changedNamed(f *File) []*NamedFile {
	var changed []*NamedFile
	for _, n := range f.Named {
		if !slices.Contains(rec.Named, namedSum{Path: n.Path, SHA256: n.Sum}) {
			changed = append(changed, n)
		}
	}
	return changed
}

// Approved reports whether f's content at its path is approved, with the
// content of the files it names.
func (a Approvals) Approved(f *File) (bool, error) {
	err := a.check(f, f.Consequential())
	var ue *UnapprovedError
	if errors.As(err, &ue) {
		return false, nil
	}
	return err == nil, err
}

// Require returns an *UnapprovedError when f sets something consequential
// and its content at its path, or that of a file it names, is not
// approved; nil otherwise.
func (a Approvals) Require(f *File) error {
	keys := f.Consequential()
	if len(keys) == 0 {
		return nil
	}
	return a.check(f, keys)
}

// check is Require of any f, which sets keys that need approval.
func (a Approvals) check(f *File, keys []string) error {
	rec, err := a.lookup(f)
	if err != nil {
		return err
	}
	e := &UnapprovedError{File: f, Keys: keys, NoStore: a.Dir == "", Store: a.Dir}
	if a.Dir != "" {
		_, err := os.Stat(a.Dir)
		e.StoreMissing = errors.Is(err, fs.ErrNotExist)
	}
	place := placeOf(f.Path)
	switch {
	case rec == nil:
	case rec.Place != place:
		e.ApprovedIn = filepath.Dir(rec.Place)
	case rec.SHA256 != f.Sum:
		e.ChangedSince = rec.ApprovedAt
	default:
		if err := f.NamedErr(); err != nil {
			return err
		}
		if e.Named = rec.changedNamed(f); len(e.Named) == 0 {
			return nil
		}
		e.ChangedSince = rec.ApprovedAt
	}
	if real, err := filepath.EvalSymlinks(f.Path); err == nil && real != f.Path && e.ApprovedIn == "" {
		e.Through = real
	}
	return e
}

// UnapprovedError refuses a config file found in the AWD that sets
// something consequential without the user's approval.
type UnapprovedError struct {
	File *File
	// Keys are what it sets that needs approval, each with what it
	// decides.
	Keys []string
	// ChangedSince is when an earlier content of the file, or of the files
	// it names, was approved; zero when it never was.
	ChangedSince time.Time
	// Named are the files it names that changed since it was approved,
	// itself unchanged.
	Named []*NamedFile
	// ApprovedIn is the directory, links resolved, where the file was
	// approved at its path, when a link on the path now leads elsewhere.
	ApprovedIn string
	// Through is where the file's path leads through symbolic links, when
	// that is another path: an approval there does not cover it.
	Through string
	// NoStore says there is nowhere to record approvals (no home
	// directory).
	NoStore bool
	// Store is the directory the approvals were read from, "" when
	// NoStore: an approval made under another config directory (another
	// HOME or XDG_CONFIG_HOME) is not seen here.
	Store string
	// StoreMissing says Store does not exist yet: nothing was ever
	// approved under it.
	StoreMissing bool
}

func (e *UnapprovedError) Error() string {
	var msg string
	switch {
	case len(e.Named) > 0:
		paths := make([]string, len(e.Named))
		for i, n := range e.Named {
			paths[i] = n.Path
		}
		return fmt.Sprintf("config %s is approved, but %s, which its %s names, changed since it was approved on %s: a file that an approved config names is approved with it",
			e.File.Path, describe(paths), e.Named[0].Setting.Key, e.ChangedSince.Format(time.DateOnly))
	case e.ApprovedIn != "":
		msg = fmt.Sprintf("config %s is not approved in %s, where a symbolic link on its path leads now (it was approved in %s)", e.File.Path, filepath.Dir(placeOf(e.File.Path)), e.ApprovedIn)
	case !e.ChangedSince.IsZero():
		msg = fmt.Sprintf("config %s changed since it was approved on %s", e.File.Path, e.ChangedSince.Format(time.DateOnly))
	default:
		msg = fmt.Sprintf("config %s is not approved", e.File.Path)
	}
	msg += fmt.Sprintf(", and it sets %s. A config file found in the working directory is loaded only after you approve it", describe(e.Keys))
	if e.Through != "" {
		msg += fmt.Sprintf(". It leads to %s through a symbolic link, and an approval is of a file at the place it is found, where its relative paths and the working directory start", e.Through)
	}
	switch {
	case e.StoreMissing:
		msg += fmt.Sprintf(". No approval is kept yet in %s, where kesoku trust keeps them", e.Store)
	case e.Store != "":
		msg += fmt.Sprintf(". Approvals were read from %s", e.Store)
	}
	return msg
}
