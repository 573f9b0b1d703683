package toolsource

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/registry"
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
		if err := a.check(m); err != nil && !registry.IsInvalidArgs(err) {
			t.Fatalf("check: %T is not invalid_args: %v", err, err)
		}
		_ = a.params()
	})
}

// FuzzProtocolLines: whatever a server prints, what reaches the SDK is
// whole lines, each a JSON value or blank, in the order printed.
func FuzzProtocolLines(f *testing.F) {
	f.Add("banner\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{bad\n[1]\r\n\n{\"a\":1}", 7)
	f.Add("{\"a\":\"\xff\"}\nx", 1)
	f.Fuzz(func(t *testing.T, out string, size int) {
		if size < 1 || size > 1<<16 {
			return
		}
		p := &protocolLines{r: bufio.NewReaderSize(strings.NewReader(out), 16), max: 64, skipped: func(string) {}}
		var got []byte
		buf := make([]byte, size)
		var err error
		for err == nil {
			var n int
			n, err = p.Read(buf)
			got = append(got, buf[:n]...)
		}
		for _, line := range strings.SplitAfter(string(got), "\n") {
			if t := strings.TrimSpace(line); t != "" && !json.Valid([]byte(t)) {
				panic(fmt.Sprintf("a line that is not JSON passed: %q", line))
			}
		}
		if err == io.EOF && len(got) > len(out) {
			t.Fatalf("more out than in: %q from %q", got, out)
		}
	})
}
