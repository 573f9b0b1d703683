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
	"time"
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
// the SHA-256 of the path, holding the path and the SHA-256 of the
// content approved. A file is approved at one path with one content: the
// same bytes elsewhere mean other things (relative paths), and a change
// needs approval again. One file per path keeps concurrent approvals of
// different files from losing each other.
type Approvals struct {
	// Dir is where the records are: $XDG_CONFIG_HOME/kesoku/trusted. ""
	// means there is nowhere to keep approvals: nothing is approved.
	Dir string
}

// ApprovalsOf returns the approvals kept in the user's config directory.
func ApprovalsOf(userDir string) Approvals { return Approvals{Dir: approvalsDir(userDir)} }

// approval is one record.
type approval struct {
	Path       string    `json:"path"`
	SHA256     string    `json:"sha256"`
	ApprovedAt time.Time `json:"approved_at"`
}

// identity is the path a file is approved under: absolute, its symbolic
// links evaluated, so that /tmp/p and /private/tmp/p are one file.
func identity(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

func (a Approvals) recordPath(path string) string {
	sum := sha256.Sum256([]byte(identity(path)))
	return filepath.Join(a.Dir, hex.EncodeToString(sum[:])+".json")
}

// Approve records f's content, at its path, as approved.
func (a Approvals) Approve(f *File) error {
	if a.Dir == "" {
		return errors.New("no config directory to record the approval in: set HOME or XDG_CONFIG_HOME")
	}
	if err := os.MkdirAll(a.Dir, 0o700); err != nil {
		return fmt.Errorf("record the approval: %w", err)
	}
	data, err := json.MarshalIndent(approval{Path: identity(f.Path), SHA256: f.Sum, ApprovedAt: time.Now().UTC().Truncate(time.Second)}, "", "  ")
	if err != nil {
		return err
	}
	// Written aside and renamed, so that a reader never sees half a record.
	tmp, err := os.CreateTemp(a.Dir, ".approval-*")
	if err != nil {
		return fmt.Errorf("record the approval: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), a.recordPath(f.Path))
	}
	if err != nil {
		os.Remove(tmp.Name())
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
	err := os.Remove(a.recordPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("revoke the approval: %w", err)
	}
	return true, nil
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
	if err := json.Unmarshal(data, &rec); err != nil || rec.Path != identity(f.Path) {
		// A damaged record approves nothing; approving again rewrites it.
		return nil, nil
	}
	return &rec, nil
}

// Approved reports whether f's content at its path is approved.
func (a Approvals) Approved(f *File) (bool, error) {
	rec, err := a.lookup(f)
	return rec != nil && rec.SHA256 == f.Sum, err
}

// Require returns an *UnapprovedError when f sets something consequential
// and its content at its path is not approved; nil otherwise.
func (a Approvals) Require(f *File) error {
	keys := f.Consequential()
	if len(keys) == 0 {
		return nil
	}
	rec, err := a.lookup(f)
	if err != nil {
		return err
	}
	if rec != nil && rec.SHA256 == f.Sum {
		return nil
	}
	e := &UnapprovedError{File: f, Keys: keys, NoStore: a.Dir == ""}
	if rec != nil {
		e.ChangedSince = rec.ApprovedAt
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
	// ChangedSince is when an earlier content of the file was approved;
	// zero when it never was.
	ChangedSince time.Time
	// NoStore says there is nowhere to record approvals (no home
	// directory).
	NoStore bool
}

func (e *UnapprovedError) Error() string {
	state := "is not approved"
	if !e.ChangedSince.IsZero() {
		state = fmt.Sprintf("changed since it was approved on %s", e.ChangedSince.Format(time.DateOnly))
	}
	return fmt.Sprintf("config %s %s, and it sets %s: a config file found in the working directory is loaded only once you approved it", e.File.Path, state, describe(e.Keys))
}
