package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
)

const secret = "AIzaSy-secret-key-0123"

func TestRedactorString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{name: "none", secrets: []string{secret}, in: "nothing here", want: "nothing here"},
		{name: "twice", secrets: []string{secret}, in: "key " + secret + " and " + secret, want: "key [redacted] and [redacted]"},
		{name: "two secrets", secrets: []string{secret, "sk-ant-other-secret"}, in: "sk-ant-other-secret/" + secret, want: "[redacted]/[redacted]"},
		{name: "a short secret is ignored", secrets: []string{"k"}, in: "keep the k", want: "keep the k"},
		{name: "no secret", in: secret, want: secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := llm.NewRedactor(tt.secrets...).String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	var nilRedactor *llm.Redactor
	if got := nilRedactor.String(secret); got != secret {
		t.Errorf("the nil Redactor changed %q to %q", secret, got)
	}
}

func TestRedactorError(t *testing.T) {
	t.Parallel()
	r := llm.NewRedactor(secret)
	base := &llm.APIError{Provider: "gemini", StatusCode: 400}
	err := r.Error(errors.Join(base, fs.ErrNotExist, errors.New("the key was "+secret)))
	if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "the key was [redacted]") {
		t.Errorf("error = %q", err)
	}
	var api *llm.APIError
	if !errors.As(err, &api) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the redacted error hides what it wraps: %v", err)
	}
	plain := errors.New("no key here")
	if got := r.Error(plain); got != plain {
		t.Errorf("an error without the key was replaced: %v", got)
	}
	if r.Error(nil) != nil {
		t.Errorf("Error(nil) is not nil")
	}
}

// memoryStore keeps what it is given.
type memoryStore struct{ recs []*message.Record }

func (m *memoryStore) Append(_ context.Context, recs ...*message.Record) error {
	m.recs = append(m.recs, recs...)
	return nil
}

func TestRedactorStore(t *testing.T) {
	t.Parallel()
	clean := &message.Record{ID: "1", Role: message.RoleUser, Type: message.TypeText, Content: json.RawMessage(`"hello"`)}
	leaky := &message.Record{
		ID: "2", Role: message.RoleTool, Type: message.TypeToolResult, Name: "read_file", CallID: "c-" + secret,
		Content:      json.RawMessage(`{"text":"GEMINI_API_KEY=` + secret + `\n"}`),
		ProviderData: json.RawMessage(`{"thinking":"` + secret + `"}`),
		IsError:      true,
		Error:        &message.ErrorInfo{Kind: message.KindToolError, Message: "bad key " + secret},
	}
	orig := *leaky
	var mem memoryStore
	if err := llm.NewRedactor(secret).Store(&mem).Append(context.Background(), clean, leaky); err != nil {
		t.Fatal(err)
	}
	if mem.recs[0] != clean {
		t.Errorf("a record without the key was copied")
	}
	want := &message.Record{
		ID: "2", Role: message.RoleTool, Type: message.TypeToolResult, Name: "read_file", CallID: "c-[redacted]",
		Content:      json.RawMessage(`{"text":"GEMINI_API_KEY=[redacted]\n"}`),
		ProviderData: json.RawMessage(`{"thinking":"[redacted]"}`),
		IsError:      true,
		Error:        &message.ErrorInfo{Kind: message.KindToolError, Message: "bad key [redacted]"},
	}
	if diff := cmp.Diff(want, mem.recs[1]); diff != "" {
		t.Errorf("stored record mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&orig, leaky); diff != "" {
		t.Errorf("the caller's record was changed (-want +got):\n%s", diff)
	}
	for _, rec := range mem.recs {
		if !json.Valid(rec.Content) {
			t.Errorf("content %s is no longer JSON", rec.Content)
		}
	}
}

// TestRedactorStream: a key cut across the chunks of a stream, at any
// place, is hidden, and the text around it arrives whole.
func TestRedactorStream(t *testing.T) {
	t.Parallel()
	text := "the key is " + secret + ", and " + secret[:5] + " is not it. " + secret
	want := "the key is [redacted], and " + secret[:5] + " is not it. [redacted]"
	r := llm.NewRedactor(secret)
	for cut := 0; cut <= len(text); cut++ {
		for _, size := range []int{1, 3, len(text)} {
			var got strings.Builder
			write, flush := r.Stream(func(s string) {
				if s == "" {
					t.Errorf("an empty chunk was handed on")
				}
				got.WriteString(s)
			})
			write(text[:cut])
			for i := cut; i < len(text); i += size {
				write(text[i:min(i+size, len(text))])
			}
			flush()
			if got.String() != want {
				t.Fatalf("cut at %d, chunks of %d: streamed %q, want %q", cut, size, got.String(), want)
			}
		}
	}

	// Text that cannot begin the key is handed on at once.
	var got []string
	write, flush := r.Stream(func(s string) { got = append(got, s) })
	write("Hello, ")
	write("world.")
	if diff := cmp.Diff([]string{"Hello, ", "world."}, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	flush()
	if len(got) != 2 {
		t.Errorf("flush handed on %q", got[2:])
	}

	// No function, no stream: a nil onText keeps a request unstreamed.
	if write, _ := r.Stream(nil); write != nil {
		t.Errorf("Stream(nil) gave a function")
	}
}
