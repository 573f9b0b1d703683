// Package secret holds the secrets kesoku knows: hidden in what comes back,
// and kept from the programs it starts.
//
// The secrets it holds (the
// providers' keys, the values of MCP servers' headers and of a key in a
// server's URL, OAuth secrets and tokens, mcp serve's token) are replaced
// by [redacted] wherever they show up (a record, a transcript, the
// terminal, what is sent to a model); and a program gets an environment
// of its own declaration and what any program needs to run (Environ), never
// kesoku's whole.
package secret

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/message"
)

// Redacted is what stands in for a secret that was redacted.
const Redacted = "[redacted]"

// MinLen is the shortest secret a Redactor hides. A real key or token is
// tens of characters long; replacing a short string would mangle ordinary
// text for nothing.
const MinLen = 8

// Redactor hides secrets in whatever comes back from a provider, a
// program or a server before it is written anywhere or sent on: a model or
// a proxy that echoes a key (an error message quoting it, a model reading
// it from a file, a tool printing its environment) must not put it in a
// record, on the terminal, in an error or in a model's next request.
// Secrets may be added as they become known (a token a login obtained);
// a Redactor is safe for concurrent use. The nil Redactor hides nothing.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	// forms are each secret as it is written and as a JSON string holds
	// it (with and without HTML escapes), longest first.
	forms    []string
	replacer *strings.Replacer
}

// NewRedactor hides the secrets given; empty and very short ones are
// ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add hides the secrets given too; empty, very short and known ones are
// ignored.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for _, s := range secrets {
		if len(s) < MinLen || slices.Contains(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
		for _, f := range jsonForms(s) {
			if !slices.Contains(r.forms, f) {
				r.forms = append(r.forms, f)
			}
		}
		changed = true
	}
	if !changed {
		return
	}
	// Longest first: a secret that holds another is replaced whole.
	slices.SortStableFunc(r.forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.forms))
	for _, f := range r.forms {
		pairs = append(pairs, f, Redacted)
	}
	r.replacer = strings.NewReplacer(pairs...)
}

// jsonForms are s as it is written, and as a JSON string holds it
// (without its quotes), with and without HTML escapes.
func jsonForms(s string) []string {
	forms := []string{s}
	for _, html := range []bool{false, true} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) != nil {
			continue
		}
		b := bytes.TrimSpace(buf.Bytes())
		if f := string(b[1 : len(b)-1]); !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	return forms
}

// Secrets are the secrets hidden.
func (r *Redactor) Secrets() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.secrets)
}

// Has reports whether s is one of the secrets hidden.
func (r *Redactor) Has(s string) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Contains(r.secrets, s)
}

// state is the replacer and the forms, nil when there is nothing to hide.
func (r *Redactor) state() (*strings.Replacer, []string) {
	if r == nil {
		return nil, nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.replacer, r.forms
}

// String is s with every secret replaced by Redacted.
func (r *Redactor) String(s string) string {
	rep, forms := r.state()
	if rep == nil || !holds(s, forms) {
		return s
	}
	return rep.Replace(s)
}

// holds reports whether s holds one of forms.
func holds(s string, forms []string) bool {
	for _, f := range forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// holdsBytes reports whether b holds one of forms, without a copy of b
// (a record's content may be a MiB, and most hold no secret).
func holdsBytes(b []byte, forms []string) bool {
	for _, f := range forms {
		if bytes.Contains(b, []byte(f)) {
			return true
		}
	}
	return false
}

// JSON is b, a JSON text, with every secret replaced, and whether there
// was one. A secret that stood outside a string (a number) would leave
// no JSON: the whole is then the string Redacted.
func (r *Redactor) JSON(b []byte) ([]byte, bool) {
	rep, forms := r.state()
	if rep == nil || len(b) == 0 || !holdsBytes(b, forms) {
		return b, false
	}
	out := []byte(rep.Replace(string(b)))
	if json.Valid(b) && !json.Valid(out) {
		out, _ = json.Marshal(Redacted)
	}
	return out, true
}

// Value is v, a value made of JSON's (what a server's result decodes
// to), with every secret replaced: v itself when it holds none.
func (r *Redactor) Value(v any) any {
	if rep, _ := r.state(); rep == nil || v == nil {
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return v
	}
	b, found := r.JSON(bytes.TrimSpace(buf.Bytes()))
	if !found {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return Redacted
	}
	return out
}

// Error is err with its message redacted; errors.Is and errors.As still
// see what it wraps.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Func is f with every secret redacted from the text it is given; nil
// when f is.
func (r *Redactor) Func(f func(string)) func(string) {
	if f == nil || r == nil {
		return f
	}
	return func(s string) { f(r.String(s)) }
}

// Record is rec with every secret redacted from the fields that carry what
// a model, a program or a server said; rec itself when it holds none, else
// a copy.
func (r *Redactor) Record(rec *message.Record) *message.Record {
	if rep, _ := r.state(); rep == nil || rec == nil {
		return rec
	}
	content, c1 := r.JSON(rec.Content)
	data, c2 := r.JSON(rec.ProviderData)
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
	if r == nil {
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
	if rep, _ := r.state(); f == nil || rep == nil {
		return f, func() {}
	}
	var mu sync.Mutex
	var held string
	write = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		rep, forms := r.state()
		text := rep.Replace(held + s)
		keep := prefixLen(text, forms)
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

// prefixLen is the length of the longest end of s that begins one of
// forms.
func prefixLen(s string, forms []string) int {
	longest := 0
	for _, secret := range forms {
		for n := min(len(secret)-1, len(s)); n > longest; n-- {
			if strings.HasSuffix(s, secret[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}
