package diff

import (
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/kesoku/kesoku/message"
)

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

// readResult reads a record line's result in one pass, checking that the
// line is JSON and that each member it reads has a record's type; ok is
// false when it is not so, and the line is then read as a message.Record,
// whose error says what is wrong. Members it does not read (id,
// created_at, ...) are not checked: diff never looks at them. gjson finds the members several times faster
// than encoding/json decodes the whole record (bench/RESULTS.md).
func readResult(line []byte) (r result, ok bool) {
	if !gjson.ValidBytes(line) {
		return r, false
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return r, false
	}
	var parent, call string
	ok = true
	v.ForEach(func(k, v gjson.Result) bool {
		var dst *string
		switch k.Str {
		case "type":
			dst = &r.typ
		case "parent_id":
			dst = &parent
		case "call_id":
			dst = &call
		case "name":
			dst = &r.name
		case "status":
			dst = &r.status
		case "content":
			r.content = v.Raw
			if v.Type == gjson.Null {
				// encoding/json leaves a RawMessage of null as null.
				r.content = "null"
			}
			return true
		case "is_error":
			switch v.Type {
			case gjson.True, gjson.False, gjson.Null:
				r.isError = v.Type == gjson.True
			default:
				ok = false
			}
			return ok
		case "error":
			ok = r.readError(v)
			return ok
		default:
			ok = !mayFold(k.Str)
			return ok
		}
		switch v.Type {
		case gjson.String:
			*dst = v.Str
			// encoding/json writes U+FFFD for each byte that is not UTF-8.
			ok = utf8.ValidString(v.Str)
		case gjson.Null:
			*dst = ""
		default:
			ok = false
		}
		return ok
	})
	r.key = call
	if r.key == "" {
		r.key = parent
	}
	if r.hasError {
		r.isError = true
	}
	return r, ok
}

func (r *result) readError(v gjson.Result) bool {
	switch {
	case v.Type == gjson.Null:
		r.hasError, r.errKind, r.errMessage = false, "", ""
		return true
	case !v.IsObject():
		return false
	}
	// A second error object fills in the first, as encoding/json does.
	r.hasError = true
	ok := true
	v.ForEach(func(k, v gjson.Result) bool {
		var dst *string
		switch k.Str {
		case "kind":
			dst = &r.errKind
		case "message":
			dst = &r.errMessage
		default:
			ok = !mayFold(k.Str)
			return ok
		}
		switch v.Type {
		case gjson.String:
			*dst = v.Str
			ok = utf8.ValidString(v.Str)
		case gjson.Null:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// mayFold reports whether key might match a member of a record without
// being written as it (encoding/json matches names regardless of case,
// and of Unicode's folds such as U+212A for k): then the line is left to
// encoding/json. The members' names are lower-case ASCII, so a key that is
// too is either one of them or none.
func mayFold(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// resultOf is the result of a record decoded whole.
func resultOf(rec *message.Record) result {
	r := result{typ: string(rec.Type), key: rec.CallID, name: rec.Name, status: string(rec.Status), isError: rec.IsError, content: string(rec.Content)}
	if r.key == "" {
		r.key = rec.ParentID
	}
	if rec.Error != nil {
		r.hasError, r.isError = true, true
		r.errKind, r.errMessage = string(rec.Error.Kind), rec.Error.Message
	}
	return r
}
