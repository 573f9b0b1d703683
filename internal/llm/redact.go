package llm

import (
	"github.com/kesoku/kesoku/internal/secret"
)

// Redacted is what stands in for a secret that was redacted.
const Redacted = secret.Redacted

// Redactor hides secrets — the API key, and every other secret kesoku
// holds — in whatever comes back from a provider or a tool before it is
// written anywhere or sent to a model (secret.Redactor). The nil Redactor
// hides nothing.
type Redactor = secret.Redactor

// NewRedactor hides the secrets given; empty and very short ones are
// ignored.
func NewRedactor(secrets ...string) *Redactor { return secret.NewRedactor(secrets...) }
