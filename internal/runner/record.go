package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

func (r *ToolRunner) sessionID(req *request.Request) string {
	if req.SessionID != "" {
		return req.SessionID
	}
	return r.opts.SessionID
}

// record is the part every record of a request shares. Its ID is given
// as it is handed out (Run), so that ids increase in request order.
func (r *ToolRunner) record(req *request.Request, d time.Duration) *message.Record {
	ms := d.Milliseconds()
	return &message.Record{
		SessionID:  r.sessionID(req),
		ParentID:   req.ID,
		Role:       message.RoleTool,
		Type:       message.TypeToolResult,
		Status:     message.StatusResponded,
		Name:       req.Name,
		CallID:     req.CallID,
		CreatedAt:  time.Now().UTC(),
		DurationMS: &ms,
	}
}

// errorRecord is the record of a call that failed after d.
func (r *ToolRunner) errorRecord(req *request.Request, kind message.ErrorKind, msg string, d time.Duration) *message.Record {
	rec := r.record(req, d)
	rec.IsError = true
	rec.Error = &message.ErrorInfo{Kind: kind, Message: r.clip(msg)}
	return rec
}

// failure is the record of a request refused before it ran.
func (r *ToolRunner) failure(req *request.Request, kind message.ErrorKind, msg string) *message.Record {
	return r.errorRecord(req, kind, msg, 0)
}

// aborted is the record of a request cut short by an interrupt (or
// --fail-fast) after d.
func (r *ToolRunner) aborted(req *request.Request, msg string, d time.Duration) *message.Record {
	rec := r.errorRecord(req, message.KindAborted, msg, d)
	rec.Status = message.StatusAborted
	return rec
}

// clip keeps an error message within MaxOutput, head and tail: a tool may
// put anything in an error.
func (r *ToolRunner) clip(msg string) string {
	limit := r.opts.MaxOutput
	if limit <= 0 || int64(len(msg)) <= limit {
		return msg
	}
	head, tail := cut(msg, limit)
	return head + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(msg)-len(head)-len(tail)) + tail
}

// success is the record of a call that returned v after d.
func (r *ToolRunner) success(req *request.Request, v any, d time.Duration) (*message.Record, error) {
	var content json.RawMessage
	if _, cut := v.(*registry.CutOutput); !cut {
		var err error
		if content, err = encodeContent(v); err != nil {
			return nil, fmt.Errorf("tool %q returned a value that is not JSON: %w", req.Name, err)
		}
	}
	rec := r.record(req, d)
	if c, ok := v.(*registry.CutOutput); ok {
		rec.Content, rec.Truncated = r.cutByTool(c)
		return rec, nil
	}
	if r.opts.MaxOutput > 0 && int64(len(content)) > r.opts.MaxOutput {
		content, rec.Truncated = r.truncate(content)
	}
	rec.Content = content
	return rec, nil
}

// encodeContent is json.Marshal with the common results (numbers,
// strings, booleans) written directly: they are most calls of a batch.
func encodeContent(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case string:
		return message.AppendString(nil, x), nil
	case int:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(nil, x, 10), nil
	case bool:
		return strconv.AppendBool(nil, x), nil
	case json.RawMessage:
		if json.Valid(x) {
			return x, nil
		}
	}
	return marshal(v)
}

// marshal is json.Marshal without HTML escaping, as records are written:
// a tool's "<html>" stays "<html>".
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// truncate cuts content to its head and tail within MaxOutput, as a JSON
// string saying what was cut and where the whole of it was saved, so that
// a model can read the rest with read_file.
func (r *ToolRunner) truncate(content json.RawMessage) (json.RawMessage, *message.Truncation) {
	whole, ext := []byte(content), ".json"
	var s string
	if len(content) > 0 && content[0] == '"' && json.Unmarshal(content, &s) == nil {
		// A string is cut as text, not as its JSON quoting.
		whole, ext = []byte(s), ".txt"
	}
	t := &message.Truncation{Bytes: int64(len(whole))}
	saved := "it could not be saved"
	if path, err := r.saveOutput(message.NewID()+ext, whole); err != nil {
		saved += ": " + err.Error()
	} else {
		t.SavedTo = path
		saved = "the whole output is in " + path
	}
	head, tail := cut(string(whole), r.opts.MaxOutput)
	return cutContent(head, tail, int64(len(whole)), saved), t
}

// cutByTool is the content of an output the tool cut itself, as it came,
// in the words of truncate.
func (r *ToolRunner) cutByTool(c *registry.CutOutput) (json.RawMessage, *message.Truncation) {
	t := &message.Truncation{Bytes: c.Bytes}
	saved := "it could not be saved"
	if c.SaveErr != nil {
		saved += ": " + c.SaveErr.Error()
	}
	if c.SavedTo != "" {
		t.SavedTo = r.inAWD(c.SavedTo)
		saved = "the whole output is in " + t.SavedTo
	}
	head, tail := c.Head, c.Tail
	if limit := r.opts.MaxOutput; limit > 0 {
		head, _ = cut(head, limit)
		_, tail = cut(tail, limit)
	}
	return cutContent(head, tail, c.Bytes, saved), t
}

// cutContent is a record's content for an output of whole bytes cut to
// head and tail, saying so where it was cut.
func cutContent(head, tail string, whole int64, saved string) json.RawMessage {
	marker := fmt.Sprintf("\n[... kesoku cut %d of %d bytes here; %s ...]\n", whole-int64(len(head))-int64(len(tail)), whole, saved)
	content, _ := marshal(head + marker + tail)
	return content
}

// cut returns the head and tail of s that together fit in limit bytes, on
// UTF-8 boundaries: half each.
func cut(s string, limit int64) (head, tail string) {
	n := int(limit / 2)
	h := n
	for h > 0 && h < len(s) && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - n
	for t < len(s) && t > 0 && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h], s[t:]
}

// saveOutput writes a whole output under OutputDir and returns its path,
// relative to the AWD when it lies inside it (so that the file tools can
// read it).
func (r *ToolRunner) saveOutput(name string, data []byte) (string, error) {
	dir := r.opts.OutputDir
	if dir == "" {
		dir = filepath.Join(r.opts.AWD, ".kesoku", "outputs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save output: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("save output: %w", err)
	}
	return r.inAWD(path), nil
}

// inAWD is path relative to the AWD when it lies inside it (so that the
// file tools can read it), else as it is.
func (r *ToolRunner) inAWD(path string) string {
	if r.opts.AWD != "" {
		if rel, err := filepath.Rel(r.opts.AWD, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}
