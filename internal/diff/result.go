package diff

import (
	"github.com/kesoku/kesoku/internal/records"
)

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
