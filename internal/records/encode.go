package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/message"
)

// AppendRecord appends the JSON encoding of rec to dst, without a newline.
// It writes what encoding/json would (with SetEscapeHTML(false)), field by
// field, without reflection:
// records are most of what a batch run spends its time on. Content and
// ProviderData must be valid JSON; they are compacted when they span lines.
func AppendRecord(dst []byte, rec *message.Record) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, rec.ID)
	dst = append(dst, `,"session_id":`...)
	dst = appendString(dst, rec.SessionID)
	if rec.ParentID != "" {
		dst = append(dst, `,"parent_id":`...)
		dst = appendString(dst, rec.ParentID)
	}
	dst = append(dst, `,"role":`...)
	dst = appendString(dst, string(rec.Role))
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, string(rec.Type))
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, string(rec.Status))
	if rec.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, rec.Name)
	}
	var err error
	if len(rec.Content) > 0 {
		dst = append(dst, `,"content":`...)
		if dst, err = appendRaw(dst, rec.Content); err != nil {
			return dst, fmt.Errorf("record %s: content: %w", rec.ID, err)
		}
	}
	if rec.IsError {
		dst = append(dst, `,"is_error":true`...)
	}
	if rec.Error != nil {
		dst = append(dst, `,"error":{"kind":`...)
		dst = appendString(dst, string(rec.Error.Kind))
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, rec.Error.Message)
		dst = append(dst, '}')
	}
	if rec.ArgsHash != "" {
		dst = append(dst, `,"args_hash":`...)
		dst = appendString(dst, rec.ArgsHash)
	}
	if rec.Position != 0 {
		dst = append(dst, `,"position":`...)
		dst = strconv.AppendInt(dst, rec.Position, 10)
	}
	dst = append(dst, `,"created_at":"`...)
	dst = rec.CreatedAt.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, '"')
	if rec.DurationMS != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, *rec.DurationMS, 10)
	}
	if rec.DecidedBy != "" {
		dst = append(dst, `,"decided_by":`...)
		dst = appendString(dst, rec.DecidedBy)
	}
	if rec.HookFeedback != "" {
		dst = append(dst, `,"hook_feedback":`...)
		dst = appendString(dst, rec.HookFeedback)
	}
	if rec.Approval != "" {
		dst = append(dst, `,"approval":`...)
		dst = appendString(dst, rec.Approval)
	}
	if rec.CallID != "" {
		dst = append(dst, `,"call_id":`...)
		dst = appendString(dst, rec.CallID)
	}
	if rec.Model != "" {
		dst = append(dst, `,"model":`...)
		dst = appendString(dst, rec.Model)
	}
	if len(rec.ProviderData) > 0 {
		dst = append(dst, `,"provider_data":`...)
		if dst, err = appendRaw(dst, rec.ProviderData); err != nil {
			return dst, fmt.Errorf("record %s: provider_data: %w", rec.ID, err)
		}
	}
	if t := rec.Truncated; t != nil {
		dst = append(dst, `,"truncated":{"bytes":`...)
		dst = strconv.AppendInt(dst, t.Bytes, 10)
		dst = append(dst, `,"saved_to":`...)
		dst = appendString(dst, t.SavedTo)
		dst = append(dst, '}')
	}
	if rec.ModelCallID != "" {
		dst = append(dst, `,"model_call_id":`...)
		dst = appendString(dst, rec.ModelCallID)
	}
	if rec.Cut != "" {
		dst = append(dst, `,"cut":`...)
		dst = appendString(dst, rec.Cut)
	}
	if u := rec.Usage; u != nil {
		dst = append(dst, `,"usage":{"input_tokens":`...)
		dst = strconv.AppendInt(dst, u.InputTokens, 10)
		dst = append(dst, `,"output_tokens":`...)
		dst = strconv.AppendInt(dst, u.OutputTokens, 10)
		if u.CacheReadTokens != 0 {
			dst = append(dst, `,"cache_read_tokens":`...)
			dst = strconv.AppendInt(dst, u.CacheReadTokens, 10)
		}
		if u.CacheWriteTokens != 0 {
			dst = append(dst, `,"cache_write_tokens":`...)
			dst = strconv.AppendInt(dst, u.CacheWriteTokens, 10)
		}
		dst = append(dst, '}')
	}
	if rec.Repeat != 0 {
		dst = append(dst, `,"repeat":`...)
		dst = strconv.AppendInt(dst, int64(rec.Repeat), 10)
	}
	if rec.CostUSD != nil {
		dst = append(dst, `,"cost_usd":`...)
		dst = strconv.AppendFloat(dst, *rec.CostUSD, 'g', -1, 64)
	}
	if rec.TraceID != "" {
		dst = append(dst, `,"trace_id":`...)
		dst = appendString(dst, rec.TraceID)
	}
	if rec.SpanID != "" {
		dst = append(dst, `,"span_id":`...)
		dst = appendString(dst, rec.SpanID)
	}
	return append(dst, '}'), nil
}

// appendRaw appends a JSON value that must stay on one line. A small
// scalar is checked by the common cases only; anything else is validated,
// and compacted when it holds line breaks (which valid JSON has only
// between tokens).
func appendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if isSimpleNumber(raw) {
		return append(dst, raw...), nil
	}
	if !json.Valid(raw) {
		return dst, errors.New("not valid JSON")
	}
	if tooDeep(raw, MaxContentDepth) {
		return dst, &DepthError{Limit: MaxContentDepth}
	}
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// isSimpleNumber reports whether b is an integer without sign tricks: the
// content of most calls, worth the shortcut past json.Valid.
func isSimpleNumber(b []byte) bool {
	if len(b) == 0 || len(b) > 19 {
		return false
	}
	if b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// safe marks the ASCII bytes written as they are in a string. Unlike
// encoding/json's default, <, > and & are not escaped for HTML: records
// are read by people, jq and databases, and "<stdin>" should read so.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off: as records write their strings, for a caller
// that encodes a string of its own (a tool's result) the same way.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
