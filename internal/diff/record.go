package diff

import (
	"encoding/json"

	"github.com/kesoku/kesoku/internal/records"
)

// The places of a record that are compared; everything else (id,
// session_id, created_at, duration_ms, position, ...) differs from run to
// run.
var (
	namePath    = Path{keyStep("name")}
	statusPath  = Path{keyStep("status")}
	errorPath   = Path{keyStep("error")}
	kindPath    = Path{keyStep("error"), keyStep("kind")}
	messagePath = Path{keyStep("error"), keyStep("message")}
	contentPath = Path{keyStep("content")}
)

// comparer compares the records of one request.
type comparer struct {
	ignore   ignoreSet
	messages bool
}

// at returns the patterns that apply under path (a place of the record's
// top level, or under error), and whether path itself is ignored.
func (c *comparer) at(path Path) (ignoreSet, bool) {
	ign := c.ignore
	for _, st := range path {
		var ignored bool
		if ign, ignored = ign.below(st); ignored {
			return nil, true
		}
	}
	return ign, false
}

// records finds the changes from old to new, in the order of the record's
// fields, and tells them to w.
func (c *comparer) records(w *walker, old, new *result) {
	c.field(w, namePath, old.name, new.name)
	c.field(w, statusPath, old.status, new.status)
	switch {
	case !old.isError && !new.isError:
	case !old.isError || !new.isError:
		if _, ignored := c.at(errorPath); !ignored {
			w.setPath(errorPath)
			w.change(old.errorJSON(), new.errorJSON())
		}
	default:
		c.field(w, kindPath, old.errKind, new.errKind)
		if c.messages {
			c.field(w, messagePath, old.errMessage, new.errMessage)
		}
	}
	if ign, ignored := c.at(contentPath); !ignored {
		w.setPath(contentPath)
		w.values(ign, old.content, new.content)
	}
}

// field tells w of the change of a string field, unless it is ignored.
func (c *comparer) field(w *walker, path Path, old, new string) {
	if old == new {
		return
	}
	if _, ignored := c.at(path); ignored {
		return
	}
	w.setPath(path)
	w.change(encodeValue(old), encodeValue(new))
}

// errorJSON is the record's error as JSON, nil where it has none; an
// is_error without an error object is an error of no kind.
func (r *result) errorJSON() json.RawMessage {
	if !r.isError {
		return nil
	}
	return encodeValue(map[string]any{"kind": r.errKind, "message": r.errMessage})
}

// result is what diff needs of a record: what it pairs by and what it
// compares, the rest of the line left unread.
type result struct {
	key, name, status string
	// isError is set by is_error, or by an error object.
	isError bool
	// errKind and errMessage are the error object's.
	errKind, errMessage string
	// content is the raw JSON of the content, nil where there is none: the
	// line's own until the record is kept waiting (merge.keep).
	content []byte
}

// resultOf is the result of a record's Head. The content is the line's:
// valid until the next line is read.
func resultOf(h *records.Head) result {
	r := result{key: h.CallID, name: h.Name, status: string(h.Status), isError: h.IsError, content: h.Content}
	if r.key == "" {
		r.key = h.ParentID
	}
	if h.Error != nil {
		r.isError = true
		r.errKind, r.errMessage = string(h.Error.Kind), h.Error.Message
	}
	return r
}
