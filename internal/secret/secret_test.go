package secret_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/message"
)

// TestRedactor: every secret is hidden in text, in JSON (as JSON writes
// it, and as a whole value that would otherwise leave no JSON), in a
// decoded value, in a record; a secret added later is hidden from then
// on; short ones are not secrets.
func TestRedactor(t *testing.T) {
	t.Parallel()
	r := secret.NewRedactor("sk-ant-secret-0123", "short", `quo"te-secret`)
	if got := r.String("a sk-ant-secret-0123 b short"); got != "a [redacted] b short" {
		t.Errorf("String = %q", got)
	}
	tests := []struct{ in, want string }{
		{`{"k":"sk-ant-secret-0123"}`, `{"k":"[redacted]"}`},
		{`{"k":"x quo\"te-secret y"}`, `{"k":"x [redacted] y"}`},
		{`{"n":1}`, `{"n":1}`},
	}
	for _, tt := range tests {
		got, _ := r.JSON([]byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("JSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	digits := secret.NewRedactor("1234567890")
	if got, found := digits.JSON([]byte(`{"n":1234567890}`)); !found || !json.Valid(got) {
		t.Errorf("JSON of a secret that is a number: %s, %v; want valid JSON", got, found)
	}
	v := r.Value(map[string]any{"list": []any{"sk-ant-secret-0123"}})
	if b, _ := json.Marshal(v); string(b) != `{"list":["[redacted]"]}` {
		t.Errorf("Value = %s", b)
	}

	r.Add("tok-later-0123456")
	rec := &message.Record{Content: json.RawMessage(`"tok-later-0123456"`), Error: &message.ErrorInfo{Kind: message.KindToolError, Message: "sk-ant-secret-0123 leaked"}}
	red := r.Record(rec)
	if string(red.Content) != `"[redacted]"` || red.Error.Message != "[redacted] leaked" {
		t.Errorf("Record: content %s, error %q", red.Content, red.Error.Message)
	}
	if string(rec.Content) != `"tok-later-0123456"` {
		t.Error("Record changed the record it was given")
	}
	if !r.Has("tok-later-0123456") || r.Has("short") {
		t.Errorf("Secrets = %v", r.Secrets())
	}

	var got strings.Builder
	write, flush := r.Stream(func(s string) { got.WriteString(s) })
	write("the key sk-ant-sec")
	write("ret-0123 is out")
	flush()
	if got.String() != "the key [redacted] is out" {
		t.Errorf("Stream = %q", got.String())
	}

	var none *secret.Redactor
	if none.String("sk-ant-secret-0123") != "sk-ant-secret-0123" || none.Record(rec) != rec {
		t.Error("the nil Redactor hid something")
	}
}

// TestEnviron: a program gets the variables any program needs and its
// own, never the rest of kesoku's environment, nor a needed one whose
// value is a secret.
func TestEnviron(t *testing.T) {
	t.Parallel()
	r := secret.NewRedactor("sk-ant-secret-0123")
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp",
		"ANTHROPIC_API_KEY=sk-ant-secret-0123", "OPENAI_API_KEY=sk-other", "CORP_TOKEN=t0k3n-0123",
		"KESOKU_ARG_X=old", "KESOKU_PROCESS=1-2.3", "HTTPS_PROXY=http://u:p@proxy",
		"TERM=sk-ant-secret-0123", "GIVEN=mine",
	}
	got := secret.Environ(environ, []string{"GIVEN=yours", "EXTRA=1"}, r)
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TMPDIR=/tmp", "GIVEN=yours", "EXTRA=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Environ =\n%q\nwant\n%q", got, want)
	}
}
