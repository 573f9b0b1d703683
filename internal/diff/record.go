package diff

import (
	"encoding/json"
	"fmt"
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
func (c *comparer) records(old, new *result) ([]Change, error) {
	var out []Change
	out = c.field(out, namePath, old.name, new.name)
	out = c.field(out, statusPath, old.status, new.status)
	switch {
	case !old.isError && !new.isError:
	case !old.isError || !new.isError:
		if _, ignored := c.at(errorPath); !ignored {
			out = append(out, Change{Path: errorPath, Old: old.errorJSON(), New: new.errorJSON()})
		}
	default:
		out = c.field(out, kindPath, old.errKind, new.errKind)
		if c.messages {
			out = c.field(out, messagePath, old.errMessage, new.errMessage)
		}
	}
	if old.content == new.content {
		return out, nil
	}
	if ign, ignored := c.at(contentPath); !ignored {
		var err error
		if out, err = compareJSON(out, contentPath, ign, rawOrNil(old.content), rawOrNil(new.content)); err != nil {
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

// errorJSON is the record's error as JSON, nil where it has none; an
// is_error without an error object is an error of no kind.
func (r *result) errorJSON() json.RawMessage {
	if !r.isError {
		return nil
	}
	return encodeValue(map[string]any{"kind": r.errKind, "message": r.errMessage})
}

// rawOrNil is the content, nil where the record has none.
func rawOrNil(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	return json.RawMessage(raw)
}
