package mcpauth

import (
	"github.com/kesoku/kesoku/internal/secret"
)

// Redacted is what stands in for a secret that was redacted: the same
// words as for a model's key.
const Redacted = secret.Redacted

// remember adds the secrets to those hidden, and to Options.Secrets.
func (h *Handler) remember(secrets ...string) {
	h.secrets.Add(secrets...)
	h.opts.Secrets.Add(secrets...)
}

// Secrets returns every secret the handler has held: the client secret,
// and each access and refresh token, the replaced ones too (a server may
// echo an old one).
func (h *Handler) Secrets() []string { return h.secrets.Secrets() }

// Redact is s with every secret the handler has held replaced by
// Redacted.
func (h *Handler) Redact(s string) string { return h.secrets.String(s) }

// RedactError is err with its message redacted; errors.Is and errors.As
// still see what it wraps.
func (h *Handler) RedactError(err error) error { return h.secrets.Error(err) }

// RedactValue is v, a result a server sent (JSON values, content
// blocks), with every secret replaced: v itself when it holds none.
func (h *Handler) RedactValue(v any) any { return h.secrets.Value(v) }
