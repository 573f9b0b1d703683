package diff

import "github.com/kesoku/kesoku/message"

// result is what diff needs of a record: what it pairs by and what it
// compares, the rest of the line left unread.
type result struct {
	typ, key, name, status string
	// isError is set by is_error, or by an error object.
	isError bool
	// errKind and errMessage are the error's, where hasError.
	hasError            bool
	errKind, errMessage string
	// content is the raw JSON of the content, "" where there is none.
	content string
}

// resultOf is the result of a record's Head. The content is copied: the
// Head of a line holds it only until the next line is read.
func resultOf(h *message.Head) result {
	r := result{typ: string(h.Type), key: h.CallID, name: h.Name, status: string(h.Status), isError: h.IsError, content: string(h.Content)}
	if r.key == "" {
		r.key = h.ParentID
	}
	if h.Error != nil {
		r.hasError, r.isError = true, true
		r.errKind, r.errMessage = string(h.Error.Kind), h.Error.Message
	}
	return r
}
