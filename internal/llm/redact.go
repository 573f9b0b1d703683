package llm

import (
	"context"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/message"
)

// Redacted is what stands in for a secret that was redacted.
const Redacted = "[redacted]"

// minSecretLen is the shortest secret a Redactor hides. A real API key is
// tens of characters long; replacing a short string would mangle ordinary
// text for nothing.
const minSecretLen = 8

// Redactor hides secrets — the API key — in whatever comes back from a
// provider or a tool before it is written anywhere: a model or a proxy
// that echoes the key (an error message quoting it, a model reading it
// from a file) must not put it in a record, on the terminal or in an
// error. The nil Redactor hides nothing.
type Redactor struct {
	secrets  []string
	replacer *strings.Replacer
}

// NewRedactor hides the secrets given; empty and very short ones are
// ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	var pairs []string
	for _, s := range secrets {
		if len(s) < minSecretLen {
			continue
		}
		r.secrets = append(r.secrets, s)
		pairs = append(pairs, s, Redacted)
	}
	if len(pairs) > 0 {
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r
}

func (r *Redactor) active() bool { return r != nil && r.replacer != nil }

// String is s with every secret replaced by Redacted.
func (r *Redactor) String(s string) string {
	if !r.active() {
		return s
	}
	return r.replacer.Replace(s)
}

// bytes is b with every secret replaced, and whether there was one.
func (r *Redactor) bytes(b []byte) ([]byte, bool) {
	if !r.active() || !r.in(string(b)) {
		return b, false
	}
	return []byte(r.replacer.Replace(string(b))), true
}

// in reports whether s holds a secret.
func (r *Redactor) in(s string) bool {
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			return true
		}
	}
	return false
}

// Error is err with its message redacted; errors.Is and errors.As still
// see what it wraps.
func (r *Redactor) Error(err error) error {
	if err == nil || !r.active() {
		return err
	}
	msg := err.Error()
	if !r.in(msg) {
		return err
	}
	return &redactedError{msg: r.replacer.Replace(msg), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Record is rec with every secret redacted from the fields that carry what
// a model or a tool said; rec itself when it holds none, else a copy.
func (r *Redactor) Record(rec *message.Record) *message.Record {
	if !r.active() {
		return rec
	}
	content, c1 := r.bytes(rec.Content)
	data, c2 := r.bytes(rec.ProviderData)
	name, callID := r.String(rec.Name), r.String(rec.CallID)
	var errInfo *message.ErrorInfo
	if rec.Error != nil {
		if msg := r.String(rec.Error.Message); msg != rec.Error.Message {
			errInfo = &message.ErrorInfo{Kind: rec.Error.Kind, Message: msg}
		}
	}
	if !c1 && !c2 && name == rec.Name && callID == rec.CallID && errInfo == nil {
		return rec
	}
	out := *rec
	out.Content, out.ProviderData, out.Name, out.CallID = content, data, name, callID
	if errInfo != nil {
		out.Error = errInfo
	}
	return &out
}

// Store is a Store that redacts every record before s keeps it.
func (r *Redactor) Store(s message.Store) message.Store {
	if !r.active() {
		return s
	}
	return redactingStore{s, r}
}

type redactingStore struct {
	message.Store
	r *Redactor
}

func (s redactingStore) Append(ctx context.Context, recs ...*message.Record) error {
	var out []*message.Record
	for i, rec := range recs {
		red := s.r.Record(rec)
		if red == rec {
			continue
		}
		if out == nil {
			// The records are the caller's: they are copied, not changed.
			out = append([]*message.Record(nil), recs...)
		}
		out[i] = red
	}
	if out == nil {
		out = recs
	}
	return s.Store.Append(ctx, out...)
}

// Stream wraps f, which receives text as a model streams it, so that a
// secret is hidden even when it arrives cut across chunks: the end of the
// text that could begin a secret is held back until the next chunk shows
// what it is. flush hands on what is held back, at the end of a stream.
func (r *Redactor) Stream(f func(string)) (write func(string), flush func()) {
	if f == nil || !r.active() {
		return f, func() {}
	}
	var mu sync.Mutex
	var held string
	write = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		text := r.replacer.Replace(held + s)
		keep := r.prefixLen(text)
		held = text[len(text)-keep:]
		if out := text[:len(text)-keep]; out != "" {
			f(out)
		}
	}
	flush = func() {
		mu.Lock()
		defer mu.Unlock()
		if held != "" {
			f(held)
			held = ""
		}
	}
	return write, flush
}

// prefixLen is the length of the longest end of s that begins a secret.
func (r *Redactor) prefixLen(s string) int {
	longest := 0
	for _, secret := range r.secrets {
		for n := min(len(secret)-1, len(s)); n > longest; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}
