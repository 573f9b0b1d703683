package toolsource

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/kesoku/kesoku/internal/jsonschema"
)

// resultSchema holds the results of an MCP server's tool to the
// outputSchema it declares, as the TypeScript SDKs hold them: a result
// (not an isError one) must have structuredContent, and that must
// validate. A server whose results do not match what it declared is
// wrong, and a record that passed them on as a success would hide it.
type resultSchema struct {
	// compile compiles the schema at the first result: a server of
	// 10,000 tools is listed without compiling a schema no call uses.
	compile func() (*jsonschema.Schema, error)
}

// newResultSchema is the check of the results of the tool name against
// raw, its outputSchema; nil (which checks nothing) for none.
func newResultSchema(name string, raw json.RawMessage) *resultSchema {
	if raw == nil {
		return nil
	}
	return &resultSchema{compile: sync.OnceValues(func() (*jsonschema.Schema, error) {
		doc, err := jsonschema.Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		// Lenient patterns, as for the input schema: an ECMAScript
		// pattern Go cannot compile checks nothing rather than failing
		// every result.
		sch, err := jsonschema.Compile("mem:///"+url.PathEscape(name)+".output.json", doc, jsonschema.Options{Draft: jsonschema.Draft2020, Regexp: regexpEngine(true)})
		if err != nil {
			return nil, compileError(err)
		}
		return sch, nil
	})}
}

// check is nil when structured, a result's structuredContent as the SDK
// decoded it (nil for none), is what the schema declares; else an error
// that says what did not match, of the tool.
func (r *resultSchema) check(structured any) error {
	if r == nil {
		return nil
	}
	if structured == nil {
		return errors.New("it declares an outputSchema, and its result has no structuredContent")
	}
	sch, err := r.compile()
	if err != nil {
		return fmt.Errorf("its outputSchema cannot check its result: %w", err)
	}
	if err := sch.Validate(structured); err != nil {
		return fmt.Errorf("its structuredContent does not match its outputSchema: %w", err)
	}
	return nil
}
