package diff

import (
	"encoding/json"
	"fmt"

	"github.com/kesoku/kesoku/message"
)

// The places of a record that are compared; everything else (id,
// session_id, created_at, duration_ms, ...) differs from run to run.
var (
	namePath    = Path{keyStep("name")}
	statusPath  = Path{keyStep("status")}
	errorPath   = Path{keyStep("error")}
	kindPath    = Path{keyStep("error"), keyStep("kind")}
	messagePath = Path{keyStep("error"), keyStep("message")}
	contentPath = Path{keyStep("content")}
)

// compared are the top-level keys of a record that Compare looks at.
var compared = []string{"name", "status", "error", "content"}

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

// records returns the changes from old to new.
func (c *comparer) records(old, new *message.Record) ([]Change, error) {
	var out []Change
	out = c.field(out, namePath, old.Name, new.Name)
	out = c.field(out, statusPath, string(old.Status), string(new.Status))
	oe, ne := errorOf(old), errorOf(new)
	switch {
	case oe == nil && ne == nil:
	case oe == nil || ne == nil:
		if _, ignored := c.at(errorPath); !ignored {
			out = append(out, Change{Path: errorPath, Old: encodeError(oe), New: encodeError(ne)})
		}
	default:
		out = c.field(out, kindPath, string(oe.Kind), string(ne.Kind))
		if c.messages {
			out = c.field(out, messagePath, oe.Message, ne.Message)
		}
	}
	if ign, ignored := c.at(contentPath); !ignored {
		var err error
		if out, err = compareJSON(out, contentPath, ign, rawOrNil(old.Content), rawOrNil(new.Content)); err != nil {
			return out, fmt.Errorf("content: %w", err)
		}
	}
	return out, nil
}

// field appends the change of a string field, unless it is ignored.
func (c *comparer) field(out []Change, path Path, old, new string) []Change {
	if old == new {
		return out
	}
	if _, ignored := c.at(path); ignored {
		return out
	}
	return append(out, Change{Path: path, Old: encodeValue(old), New: encodeValue(new)})
}

// errorOf is a record's error; is_error without an error object is an
// error of no kind.
func errorOf(r *message.Record) *message.ErrorInfo {
	if r.Error == nil && r.IsError {
		return &message.ErrorInfo{}
	}
	return r.Error
}

func encodeError(e *message.ErrorInfo) json.RawMessage {
	if e == nil {
		return nil
	}
	return encodeValue(map[string]any{"kind": string(e.Kind), "message": e.Message})
}

// rawOrNil is the content, nil where the record has none.
func rawOrNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return raw
}
