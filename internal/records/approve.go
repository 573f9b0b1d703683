package records

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kesoku/kesoku/message"
)

// Deferred is a call a records file holds as deferred: waiting for a
// person's answer.
type Deferred struct {
	// ID is the request's id (the record's parent_id); CallID a model's
	// id of the call, in a session's transcript.
	ID, CallID string
	Name       string
	// DecidedBy is what deferred it, Approval the answer it has ("" for
	// none yet).
	DecidedBy, Approval string
}

// NoDeferredError says that ids name no deferred call of the file.
type NoDeferredError struct {
	Path string
	IDs  []string
	// Deferred are the calls the file does hold as deferred.
	Deferred []Deferred
}

func (e *NoDeferredError) Error() string {
	return fmt.Sprintf("%s holds no deferred call of id %q", e.Path, e.IDs)
}

// Approve answers the deferred calls of the records file at path whose id
// (or call_id) is among ids: approved, or refused. It rewrites the file
// in one step under its lock (a file a run writes to is refused with
// ErrInUse), each answer on the call's deferred record, so that a resumed
// run finds it there. Every id must name a deferred call; none is
// answered otherwise (a *NoDeferredError). It returns the calls answered.
func Approve(path string, ids []string, approved bool) ([]Deferred, error) {
	answer := message.ApprovalRefused
	if approved {
		answer = message.ApprovalApproved
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err // Replace would make it
	}
	var done []Deferred
	err := Replace(path, func(w io.Writer) error {
		done = done[:0]
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		found := map[string]bool{}
		var all []Deferred
		rd := NewReader(f, path)
		var buf []byte
		for rd.Scan() {
			line := rd.Bytes()
			h, err := rd.Head()
			if IsTorn(err) {
				break
			}
			if err != nil {
				return err
			}
			if h.Type == message.TypeToolResult && h.Status == message.StatusDeferred {
				d := Deferred{ID: h.ParentID, CallID: h.CallID, Name: h.Name, Approval: h.Approval}
				hit := slices.Contains(ids, h.ParentID) || h.CallID != "" && slices.Contains(ids, h.CallID)
				if hit {
					rec, err := rd.Record()
					if err != nil {
						return err
					}
					rec.Approval = answer
					d.DecidedBy, d.Approval = rec.DecidedBy, answer
					found[h.ParentID], found[h.CallID] = true, true
					done = append(done, d)
					if buf, err = AppendRecord(buf[:0], rec); err != nil {
						return err
					}
					line = buf
				}
				all = append(all, d)
			}
			if _, err := w.Write(line); err != nil {
				return err
			}
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := rd.Err(); err != nil {
			return err
		}
		var missing []string
		for _, id := range ids {
			if !found[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return &NoDeferredError{Path: path, IDs: missing, Deferred: all}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}
