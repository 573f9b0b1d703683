// Package schema holds the table of formats that tool declarations are
// exported in, and which package builds each. Gemini's, Claude's and
// OpenAI's are built with their SDKs' own types, next to those providers;
// the others need no SDK and are built here from the registry's canonical
// schemas.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/openai"
	"github.com/kesoku/kesoku/internal/toolset"
)

// The formats tools can be exported in.
const (
	FormatGemini     = "gemini"
	FormatClaude     = "claude"
	FormatOpenAI     = "openai"
	FormatMCP        = "mcp"
	FormatJSONSchema = "jsonschema"
)

// Formats lists every export format, for help text and error messages.
var Formats = []string{FormatGemini, FormatClaude, FormatOpenAI, FormatMCP, FormatJSONSchema}

// UnknownFormatError says that an export format does not exist.
type UnknownFormatError struct {
	Format     string
	Suggestion string
}

func (e *UnknownFormatError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown format %q", e.Format)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", e.Suggestion)
	}
	fmt.Fprintf(&b, ": want one of %s", strings.Join(Formats, ", "))
	return b.String()
}

// Export returns the declarations of specs in format, as the value its API
// takes, ready for encoding/json: for gemini, claude and openai the
// providers' own SDK types (openai's the `tools` of a Chat Completions
// request), for mcp the `tools` of a tools/list result, for jsonschema one
// JSON Schema per tool. Every format is a JSON array, in the order of specs.
func Export(format string, specs []*toolset.Tool) (any, error) {
	switch format {
	case FormatGemini:
		return gemini.Tools(specs), nil
	case FormatClaude:
		return claude.Tools(specs), nil
	case FormatOpenAI:
		return openai.Tools(specs), nil
	case FormatMCP:
		return mcpTools(specs), nil
	case FormatJSONSchema:
		return jsonSchemas(specs), nil
	}
	return nil, &UnknownFormatError{Format: format, Suggestion: english.Suggest(format, Formats)}
}

// JSON is Export written as people and programs read it: indented by
// two spaces, HTML characters left as they are, and a final newline.
func JSON(format string, specs []*toolset.Tool) ([]byte, error) {
	v, err := Export(format, specs)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %s tools: %w", format, err)
	}
	// The SDKs' own encoders escape <, > and & anyway.
	return unescapeHTML(b.Bytes()), nil
}

// unescapeHTML turns the \u003c, \u003e and \u0026 that encoding/json
// writes for <, > and & back into the characters, which mean the same in
// JSON and read better. Escapes are read in pairs, so that an escaped
// backslash followed by "u003c" is left alone.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}
