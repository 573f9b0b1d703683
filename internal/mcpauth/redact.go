package mcpauth

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Redacted is what stands in for a secret that was redacted: the same
// words as for a model's key.
const Redacted = "[redacted]"

// minSecretLen is the shortest secret hidden: replacing a short string
// would mangle ordinary text for nothing, and no real token is short.
const minSecretLen = 8

// remember adds the secrets to those hidden; the caller holds h.mu.
func (h *Handler) remember(secrets ...string) {
	for _, s := range secrets {
		if len(s) >= minSecretLen {
			h.secrets[s] = true
		}
	}
}

// Secrets returns every secret the handler has held: the client secret,
// and each access and refresh token, the replaced ones too (a server may
// echo an old one).
func (h *Handler) Secrets() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.secrets))
	for s := range h.secrets {
		out = append(out, s)
	}
	return out
}

// Redact is s with every secret the handler has held replaced by
// Redacted.
func (h *Handler) Redact(s string) string {
	for _, secret := range h.Secrets() {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return s
}

// RedactError is err with its message redacted; errors.Is and errors.As
// still see what it wraps.
func (h *Handler) RedactError(err error) error {
	if err == nil {
		return nil
	}
	if msg := h.Redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// RedactValue is v, a result a server sent (JSON values, content
// blocks), with every secret replaced: v itself when it holds none, else
// its JSON with the secrets replaced, decoded again.
func (h *Handler) RedactValue(v any) any {
	secrets := h.Secrets()
	if len(secrets) == 0 {
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return v
	}
	b, found := buf.Bytes(), false
	for _, s := range secrets {
		// A client secret may hold what JSON escapes (a quote, a
		// backslash): it is looked for as JSON writes it.
		forms := [][]byte{[]byte(s), jsonText(s)}
		for _, f := range forms {
			if bytes.Contains(b, f) {
				found = true
				b = bytes.ReplaceAll(b, f, []byte(Redacted))
			}
		}
	}
	if !found {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return Redacted
	}
	return out
}

// jsonText is s as a JSON string holds it, without the quotes and
// without HTML escapes (as RedactValue encodes).
func jsonText(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1]
}
