package toolsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/kesoku/kesoku/internal/config"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// FuzzDeclarations: the tools: and mcpServers: sections of a config file
// become declarations or errors with a place; nothing panics.
func FuzzDeclarations(f *testing.F) {
	for _, s := range []string{
		"tools:\n  t:\n    command: [echo, \"{{x}}\"]\n    parameters: {type: object, properties: {x: {type: string}}}\n",
		"tools:\n  t: {command: [echo], parameters: {type: object, properties: {a: {$ref: '#/$defs/b'}}, $defs: {b: {type: string}}}}\n",
		"tools:\n  t: {command: [x], timeout: 5}\n", "tools:\n  t: {command: [], read_only: yes}\n",
		"tools:\n  t: {command: [x], parameters: {type: object, properties: {a: {pattern: '('}}}}\n",
		"mcpServers:\n  s: {command: x, args: [a], env: {K: '${V:-d}'}, timeout: 1000}\n",
		"mcpServers:\n  s: {type: sse, url: 'http://x', headers: {A: b}}\n", "mcpServers:\n  a_: {command: x}\n",
		"tools:\n  x__y: {command: [z]}\nmcpServers:\n  x: {command: y}\n",
		"mcpServers:\n  s: {type: http, url: 'http://x', oauth: {clientId: a, clientSecret: '${S}', scopes: [r, w]}}\n",
		"mcpServers:\n  s: {url: 'http://x', oauth: {}}\n", "mcpServers:\n  s: {command: x, oauth: {clientId: a}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := config.Parse("/x/kesoku.yaml", data, nil)
		if err != nil {
			return
		}
		opts := Options{Config: &config.Config{Files: []*config.File{file}}}
		for _, err := range []error{
			func() error { _, err := declaredTools(opts); return err }(),
			func() error { _, err := declaredServers(opts); return err }(),
		} {
			var ce *config.Error
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
		}
	})
}

// FuzzArgSchema: an MCP server's inputSchema is outside input. It
// compiles or is refused; a compiled one checks any arguments without a
// panic, and refuses them with an *ArgsError.
func FuzzArgSchema(f *testing.F) {
	f.Add([]byte(searchSchema), []byte(`{"query": "x", "limit": 0, "tags": [1]}`))
	f.Add([]byte(`{"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"const": 1}]}}}`), []byte(`{"a": 2}`))
	f.Add([]byte(`{"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1}`), []byte(`{"a b": "x"}`))
	f.Add([]byte(`{"type": "object", "$defs": {"n": {"$ref": "#/$defs/n"}}, "properties": {"x": {"$ref": "#/$defs/n"}}}`), []byte(`{"x": 1}`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		a, err := compileArgSchema("t", schema, true)
		if err != nil {
			var se *schemaError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *schemaError: %v", err, err)
			}
			return
		}
		var m map[string]any
		if json.Unmarshal(args, &m) != nil {
			return
		}
		if err := a.check(m); err != nil && !toolspec.IsInvalidArgs(err) {
			t.Fatalf("check: %T is not invalid_args: %v", err, err)
		}
		_ = a.params()
	})
}

// FuzzStdioConn: whatever a server prints, the connection hands the SDK
// only messages, never panics, and tells of what it skipped without a
// control character.
func FuzzStdioConn(f *testing.F) {
	f.Add("banner\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{bad\n[1]\r\n\n{\"a\":1}")
	f.Add("{\"a\":\"\xff\"}\nx\x1b[2J")
	f.Add(`[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":""}]}}]`)
	f.Add(`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("a", 100) + `"}` + "\n")
	f.Add(`{"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `,"jsonrpc":"2.0","id":1}`)
	f.Fuzz(func(t *testing.T, out string) {
		var mu sync.Mutex
		var skipped []string
		c := newStdioConn(io.NopCloser(strings.NewReader(out)), nopWriteCloser{io.Discard}, 64, &toolList{}, func(l string) { mu.Lock(); skipped = append(skipped, l); mu.Unlock() })
		c.calls[mustID(t, 1.0)] = methodListTools
		c.start()
		for {
			msg, err := c.Read(context.Background())
			if err != nil {
				break
			}
			if msg == nil {
				t.Fatal("a nil message")
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, l := range skipped {
			if strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("a skipped line told raw: %q", l)
			}
		}
	})
}

// FuzzToolList: whatever a tools/list result holds, reading it never
// panics, and what it hands on is JSON when it came as JSON.
func FuzzToolList(f *testing.F) {
	f.Add(`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":5},{"name":"b","annotations":"x"}],"nextCursor":"c"}`)
	f.Add(`{"tools":[` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `]}`)
	f.Fuzz(func(t *testing.T, result string) {
		var l toolList
		out := l.result(json.RawMessage(result))
		if json.Valid([]byte(result)) && !json.Valid(out) {
			t.Fatalf("%q made %q", result, out)
		}
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func mustID(t testing.TB, v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// FuzzMembers: the members that members finds in a JSON object, by its
// brackets alone, are those encoding/json reads, key and value.
func FuzzMembers(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`)
	f.Add(`{ "a" : [1, "]}\"", {"b": null}] , "c":-1.5e3,"a":true}`)
	f.Add(`{"\u0061\"":"x\\"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var want map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &want) != nil || want == nil {
			return
		}
		got := map[string]json.RawMessage{}
		if !members([]byte(doc), func(k string, v []byte) bool { got[k] = v; return true }) {
			t.Fatalf("members refused %q", doc)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: members %d, want %d", doc, len(got), len(want))
		}
		for k, v := range want {
			var a, b bytes.Buffer
			if json.Compact(&a, v) != nil || json.Compact(&b, got[k]) != nil || a.String() != b.String() {
				t.Fatalf("%q: member %q is %q, want %q", doc, k, got[k], v)
			}
		}
	})
}
