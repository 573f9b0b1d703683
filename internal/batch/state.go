// Package batch is kesoku batch: a file's analyze_media requests sent to a
// provider's batch API, followed in a state file, collected as records.
//
// It owns sending the analyze_media requests of a file to a provider's
// batch API (Claude's Message Batches, Gemini's
// Batch Mode: half the price, answers within a day), the state file that
// follows the batch from submit to collect, and the records kesoku run
// would have written, made from the results.
//
// Every step can be interrupted and taken up again by the same command:
// submit records each part in the state file as the provider accepts it,
// and goes on after the last; collect writes records in request order and
// goes on after the last record of its output.
package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kesoku/kesoku/internal/workspace"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// State is what a batch's state file holds: what status and collect need
// later, and nothing secret (no key, no request's content).
type State struct {
	Version int `json:"version"`
	// ID names the batch for kesoku, and the default state file.
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// File is the request file, an absolute path (a copy under
	// .kesoku/batches for standard input); Format its format, and SHA256
	// the hash of its content, so that collect reads the very requests
	// that were sent.
	File   string `json:"file"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	// Requests is how many requests the file holds.
	Requests int64 `json:"requests"`
	// SessionID is the session of the records; with SessionFlag (it came
	// from --session) it wins over a file's own session_id, as in run.
	SessionID   string    `json:"session_id"`
	SessionFlag bool      `json:"session_flag,omitempty"`
	Created     time.Time `json:"created_at"`
	// Parts are the provider's batches, in request order, each the
	// requests of a run of positions.
	Parts []Part `json:"parts"`
	// Submitted says every request was sent: submit is done.
	Submitted bool `json:"submitted"`
	// Uploads are files uploaded for requests that are in no part yet
	// (submit was interrupted): submit deletes them when it goes on.
	Uploads []string `json:"uploads,omitempty"`
	// Cleaned says the files kesoku uploaded for the batch were deleted,
	// every record being written.
	Cleaned bool `json:"cleaned,omitempty"`
	// Sending is the part being sent, from just before it is sent until
	// the provider's answer is recorded: a submit killed (or cut off) in
	// between finds it there, since the provider may have created it.
	Sending *Sending `json:"sending,omitempty"`
}

// Sending is a part on its way to the provider.
type Sending struct {
	// Name is the name it was given (Gemini's display name).
	Name string `json:"name"`
	// First and Last are its requests' positions.
	First   int64     `json:"first"`
	Last    int64     `json:"last"`
	Started time.Time `json:"started_at"`
	// FilesExpire is when the files uploaded for it go (Part.FilesExpire).
	FilesExpire time.Time `json:"files_expire_at,omitzero"`
}

// Part is one of the provider's batches: the requests at positions First
// to Last (1-based, in the whole file).
type Part struct {
	Batch string `json:"batch"`
	First int64  `json:"first"`
	Last  int64  `json:"last"`
	// Bytes is the size of its requests as sent.
	Bytes   int64     `json:"bytes"`
	Created time.Time `json:"created_at"`
	Expires time.Time `json:"expires_at,omitzero"`
	// Files are the files kesoku uploaded for it (media, its input file):
	// deleted once every record is written.
	Files []string `json:"files,omitempty"`
	// FilesExpire is when the first of Files is deleted by the provider
	// itself (Gemini: 48 hours after its upload); a part that has not run
	// by then fails for want of it. Zero where the provider keeps files.
	FilesExpire time.Time `json:"files_expire_at,omitzero"`
}

// Count is how many requests the part holds.
func (p Part) Count() int64 { return p.Last - p.First + 1 }

// sent is how many requests the parts hold: the next request to send is
// at sent+1.
func (s *State) sent() int64 {
	if len(s.Parts) == 0 {
		return 0
	}
	return s.Parts[len(s.Parts)-1].Last
}

// files is how many files kesoku uploaded for the parts.
func (s *State) files() int {
	n := 0
	for _, p := range s.Parts {
		n += len(p.Files)
	}
	return n
}

// part is the part holding the request at pos, and its index.
func (s *State) part(pos int64) (int, bool) {
	for i, p := range s.Parts {
		if p.First <= pos && pos <= p.Last {
			return i, true
		}
	}
	return 0, false
}

// Key is the provider's key (Claude's custom_id, Gemini's key) of the
// request at pos: derived from its position, never from the user's id,
// which may be anything (Claude holds custom_id to ^[a-zA-Z0-9_-]{1,64}$).
func Key(pos int64) string { return "r" + strconv.FormatInt(pos, 10) }

// position is the position a key names, 0 for no key of Key's.
func position(key string) int64 {
	n, ok := strings.CutPrefix(key, "r")
	if !ok {
		return 0
	}
	pos, err := strconv.ParseInt(n, 10, 64)
	if err != nil || pos < 1 || Key(pos) != key {
		return 0
	}
	return pos
}

// StatePath is the default state file of the batch id, under the AWD.
func StatePath(awd, id string) string {
	return workspace.LayoutOf(awd).BatchState(id)
}

// Load reads a state file.
func Load(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is no batch state file: %w", path, err)
	}
	switch {
	case s.Version != stateVersion:
		return nil, fmt.Errorf("%s: state file version %d; this kesoku reads version %d", path, s.Version, stateVersion)
	case s.Provider == "" || s.Model == "" || s.File == "":
		return nil, fmt.Errorf("%s is no batch state file: it names no provider, model or request file", path)
	}
	for i, p := range s.Parts {
		if p.Batch == "" || p.First < 1 || p.Last < p.First || (i > 0 && p.First != s.Parts[i-1].Last+1) || (i == 0 && p.First != 1) {
			return nil, fmt.Errorf("%s: part %d is broken (batch %q, requests %d to %d)", path, i+1, p.Batch, p.First, p.Last)
		}
		// The parts hold the file's requests and no more: a state edited
		// by hand would otherwise have collect write records and only
		// then find the count wrong.
		if p.Last > s.Requests {
			return nil, fmt.Errorf("%s: part %d holds requests %d to %d of a batch of %d", path, i+1, p.First, p.Last, s.Requests)
		}
	}
	if s.Submitted && s.sent() != s.Requests {
		return nil, fmt.Errorf("%s: the batch of %d requests is marked sent, but its parts hold %d", path, s.Requests, s.sent())
	}
	return &s, nil
}

// fits checks the state at path against its request file, named file,
// which holds n requests: a state edited by hand must be refused before
// anything is allocated by the counts it claims, or any record written.
func (s *State) fits(path, file string, n int64) error {
	switch {
	case s.Submitted && s.Requests != n:
		return usage("%s: the state says the batch holds %d requests, but %s holds %d: the state file was edited; collect writes nothing from it", path, s.Requests, file, n)
	case s.sent() > n:
		return usage("%s: the state says requests 1 to %d were sent, but %s holds %d: the state file was edited; submit sends nothing from it", path, s.sent(), file, n)
	case s.Sending != nil && s.Sending.Last > n:
		return usage("%s: the state says requests %d to %d were being sent, but %s holds %d: the state file was edited; submit sends nothing from it", path, s.Sending.First, s.Sending.Last, file, n)
	}
	return nil
}

// Save writes the state file whole or not at all: written beside it,
// synced, then renamed over it, so that an interrupt or a crash leaves
// the old state or the new one.
func (s *State) Save(path string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save the batch state: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return fmt.Errorf("save the batch state %s: %w", path, err)
	}
	return nil
}

// hashFile is the SHA-256 of a file's content, in hex. Its errors name
// the file once, as path says it, in kesoku run's words.
func hashFile(path string) (string, error) {
	// A FIFO or a device is refused before it is opened (opening a FIFO
	// waits for its writer): a batch reads its request file again, to
	// send it and to collect its answers, and a FIFO is read once.
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %s, not a regular file: a batch reads its request file again when it collects; give a file, or - (standard input, which is kept)", path, specialKind(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, pathCause(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s is a directory", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, pathCause(err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// pathCause is what went wrong with a file, without the operation and
// path that *fs.PathError adds, for a message that names the file itself.
func pathCause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// ErrChanged says the request file is not the one the batch was
// submitted from.
var ErrChanged = errors.New("the request file changed since the batch was submitted")

// specialKind is what a file that is no regular file is, in words.
func specialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
