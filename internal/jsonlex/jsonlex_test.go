package jsonlex

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// walk reads every token of data, and returns the error that ended it.
func walk(data []byte, cut bool) error {
	var w Walker
	w.Reset(data)
	w.Cut, w.MaxDepth = cut, 10000
	for w.Next() {
		if w.Delim() == 0 && w.Data[w.Start] == '"' {
			w.Str()
		}
	}
	return w.Err
}

// FuzzWalker holds the Walker to encoding/json: the same texts accepted,
// every mistake worded alike at the same offset (encoding/json's Offset
// is after the byte it refuses); and a text cut anywhere is either cut
// short or wrong as the whole text is.
func FuzzWalker(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0,1e5,"x\u00e9\ud83d\ude00",null,true,false],"b":{}}`, `[1 2]`, `{"a" "b"}`, `{"a":}`,
		`{"a":1,}`, `[1,]`, `[}`, `{]`, `01`, `1.`, `1e`, `-`, `tru`, `nul x`, `"\x"`, `"\u12g4"`, "\"a\x01\"", `"abc`, "\"\xff\"",
		`[1] ]`, `,`, `:`, `{"a":1 "b":2}`, `{"a"`, ` `, `x`, `{1:2}`, `["a":1]`, `[{"a":1},{"b":[2,{"c":"\"d"}]}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		stdErr := json.Unmarshal(data, new(json.RawMessage))
		err := walk(data, false)
		var se *json.SyntaxError
		if errors.As(stdErr, &se) && strings.Contains(se.Error(), "exceeded max depth") {
			return
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("Walker: %v, encoding/json: %v, for %q", err, stdErr, data)
		}
		if err != nil {
			got, ok := err.(*SyntaxError)
			if !ok || !errors.As(stdErr, &se) {
				t.Fatalf("Walker: %#v, encoding/json: %#v", err, stdErr)
			}
			off, msg := int(se.Offset), se.Error()
			switch {
			case atEnd(se, data):
				msg = "unexpected end of JSON input"
			case strings.HasPrefix(msg, "invalid character"):
				off--
			}
			if strings.HasSuffix(msg, `in \u hexadecimal character escape`) {
				off = strings.LastIndex(string(data[:off]), `\u`) + 2
			}
			if got.Msg != msg || got.Off != off {
				t.Fatalf("Walker: %q at %d, encoding/json: %q at %d, for %q", got.Msg, got.Off, msg, off, data)
			}
		}
		for k := range len(data) {
			cutErr := walk(data[:k], true)
			if cutErr == ErrCut {
				continue
			}
			if cutErr == nil || err == nil || cutErr.Error() != err.Error() || cutErr.(*SyntaxError).Off != err.(*SyntaxError).Off {
				t.Fatalf("cut after %d bytes: %v; whole: %v, for %q", k, cutErr, err, data)
			}
		}
	})
}

func TestWalkerOffsets(t *testing.T) {
	tests := []struct {
		text string
		off  int
		msg  string
	}{
		{`"a\x"`, 3, `invalid character 'x' in string escape code`},
		{"\"a\x01\"", 2, `invalid character '\x01' in string literal`},
		{`"\u12g4"`, 3, `invalid character 'g' in \u hexadecimal character escape`},
		{`"abc`, 4, `unexpected end of JSON input`},
		{`"abc\`, 5, `unexpected end of JSON input`},
		{`{"a":1,}`, 7, `invalid character '}' looking for beginning of object key string`},
		{`[1 2]`, 3, `invalid character '2' after array element`},
		{`{"a" 1}`, 5, `invalid character '1' after object key`},
		{`[[[1]]]`, 2, `nesting deeper than 2 levels`},
	}
	for _, tt := range tests {
		var w Walker
		w.Reset([]byte(tt.text))
		w.MaxDepth = 2
		for w.Next() {
		}
		err, _ := w.Err.(*SyntaxError)
		if err == nil || err.Off != tt.off || err.Msg != tt.msg {
			t.Errorf("%q: error = %+v, want {Off:%d Msg:%s}", tt.text, w.Err, tt.off, tt.msg)
		}
	}
}
