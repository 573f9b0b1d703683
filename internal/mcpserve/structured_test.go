package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

type point struct {
	X     int    `json:"x"`
	Y     int    `json:"y"`
	Label string `json:"label,omitempty"`
}

type pointArgs struct {
	// None asks for no point: a nil pointer.
	None bool `json:"none,omitempty"`
	// Long asks for a label longer than the output limit.
	Long bool `json:"long,omitempty"`
}

type countArgs struct {
	N int `json:"n"`
}

// structuredTools are tools of every kind of result: typed ones whose Go
// result type gives an output schema (and which may return nil), tools
// with an output schema as another MCP server declares it (an object's,
// and a number's), a tool whose object result has no schema, and one that
// fails.
func structuredTools(t *testing.T) *toolset.Set {
	t.Helper()
	typed := registry.New()
	if err := registry.Add(typed, "point", "Returns a point, or none.", func(_ context.Context, _ *registry.ToolContext, in pointArgs) (*point, error) {
		switch {
		case in.None:
			return nil, nil
		case in.Long:
			return &point{X: 1, Label: strings.Repeat("long ", 100)}, nil
		}
		return &point{X: 1, Y: 2}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := registry.Add(typed, "counts", "Counts to n; none for 0.", func(_ context.Context, _ *registry.ToolContext, in countArgs) (map[string]int, error) {
		if in.N == 0 {
			return nil, nil
		}
		m := map[string]int{}
		for i := range in.N {
			m[fmt.Sprint(i)] = i
		}
		return m, nil
	}); err != nil {
		t.Fatal(err)
	}
	reg := toolset.Of(typed)
	for _, s := range []*toolset.Tool{
		{Name: "proxied", Description: "As an MCP server's tool with an object's outputSchema.",
			RawOutputSchema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`),
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				// As the SDK's client decodes a server's structuredContent.
				return map[string]any{"value": "from the server"}, nil
			}},
		{Name: "proxied_number", Description: "As an MCP server's tool of 2026-07-28 whose outputSchema is a number's.",
			RawOutputSchema: json.RawMessage(`{"type":"integer"}`),
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return 7, nil
			}},
		{Name: "proxied_text", Description: "As an MCP server's tool with an object's outputSchema that returns text alone.",
			RawOutputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return "just text", nil
			}},
		{Name: "printed", Description: "As a command tool that prints a JSON object.",
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return json.RawMessage(`{"n":3}`), nil
			}},
		{Name: "fails", Description: "Fails.",
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return nil, errors.New("it did not work")
			}},
	} {
		reg.MustRegister(s)
	}
	return reg
}

// validatingClient calls tools as the TypeScript SDK's client does: it
// keeps the outputSchema of each tool listed, and refuses a successful
// result of a tool that has one unless it carries structured content
// that conforms. A client of a revision before 2026-07-28 also takes only
// an object as structured content, and an outputSchema only of "type":
// "object".
type validatingClient struct {
	t       *testing.T
	cs      *mcp.ClientSession
	modern  bool
	schemas map[string]*jsonschema.Schema
	listed  map[string]json.RawMessage
}

func newValidatingClient(t *testing.T, cs *mcp.ClientSession) *validatingClient {
	t.Helper()
	vc := &validatingClient{t: t, cs: cs, modern: cs.InitializeResult().ProtocolVersion >= modern,
		schemas: map[string]*jsonschema.Schema{}, listed: map[string]json.RawMessage{}}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		vc.listed[tool.Name] = raw
		if root, _ := tool.OutputSchema.(map[string]any); !vc.modern && root["type"] != "object" {
			t.Errorf("%s: outputSchema %s to a client of %s, which takes only an object's", tool.Name, raw, legacy)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: outputSchema %s: %v", tool.Name, raw, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(tool.Name+".json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(tool.Name + ".json")
		if err != nil {
			t.Fatalf("%s: outputSchema %s does not compile: %v", tool.Name, raw, err)
		}
		vc.schemas[tool.Name] = sch
	}
	return vc
}

// call returns the result, or the error the validating client would
// throw in its place.
func (vc *validatingClient) call(name string, args any) (*mcp.CallToolResult, error) {
	vc.t.Helper()
	res := call(vc.t, vc.cs, name, args)
	if res.StructuredContent != nil && !vc.modern {
		if _, ok := res.StructuredContent.(map[string]any); !ok {
			return nil, fmt.Errorf("structured content %v is no object", res.StructuredContent)
		}
	}
	sch := vc.schemas[name]
	if sch == nil || res.IsError {
		return res, nil
	}
	if res.StructuredContent == nil {
		return nil, errors.New("has an output schema but did not return structured content")
	}
	data, _ := json.Marshal(res.StructuredContent)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		vc.t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		return nil, fmt.Errorf("structured content does not match the output schema: %v", err)
	}
	return res, nil
}

// clients are SDK clients of either revision, on a stream and over HTTP
// (statelessly for 2026-07-28, in sessions before), of one server of reg,
// keyed "stream VERSION" and "http VERSION".
func clients(t *testing.T, reg *toolset.Set, opts Options) map[string]*mcp.ClientSession {
	t.Helper()
	s := New(reg, opts)
	out := map[string]*mcp.ClientSession{}
	for _, version := range []string{modern, legacy} {
		ct, st := mcp.NewInMemoryTransports()
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Serve(ctx, st); close(done) }()
		c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); stop(); <-done })
		out["stream "+version] = cs
	}
	srv := httptest.NewServer(s.Handler(""))
	t.Cleanup(srv.Close)
	out["http "+modern] = sdkClient(t, srv.URL+Path, "")
	out["http "+legacy] = sdkClient(t, srv.URL+Path, legacy)
	for where, cs := range out {
		if got, want := cs.InitializeResult().ProtocolVersion, where[strings.Index(where, " ")+1:]; got != want {
			t.Fatalf("%s: protocol %s", where, got)
		}
	}
	return out
}

// A tool whose result type gives a schema declares it as its
// outputSchema, to clients of either revision; one from another MCP
// server declares the schema that server gave, unless it is no object's
// and the client is of a revision before 2026-07-28, which takes only an
// object's. A tool without one declares none.
func TestOutputSchemas(t *testing.T) {
	t.Parallel()
	reg := structuredTools(t)
	for where, cs := range clients(t, reg, testOptions(t)) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		for _, tool := range res.Tools {
			if tool.OutputSchema != nil {
				got[tool.Name] = tool.OutputSchema
			}
		}
		want := map[string]any{}
		for _, name := range []string{"point", "counts", "proxied", "proxied_number", "proxied_text"} {
			if name == "proxied_number" && strings.HasSuffix(where, legacy) {
				continue
			}
			spec, _ := reg.Lookup(name)
			var v any
			if err := json.Unmarshal(spec.OutputSchema(), &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want[name] = v
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: output schemas (-want +got):\n%s", where, diff)
		}
	}
}

// A result that is an object comes back as structured content, its JSON
// as the text beside it, with or without an output schema; a tool error
// carries none. A result that cannot conform to the tool's object schema
// (null, or an object cut to fit the output limit) is answered as an
// error saying so, which a client that validates passes on rather than
// refuse; the record says what the tool returned.
func TestStructuredResults(t *testing.T) {
	t.Parallel()
	reg := structuredTools(t)
	opts := testOptions(t)
	opts.Runner.MaxOutput = 200
	store := &memStore{}
	opts.Records = store
	type want struct {
		text       string // a substring, for an error
		isError    bool
		structured any // nil for none
	}
	object := func(text string, v any) want { return want{text: text, structured: v} }
	fails := func(text string) want { return want{text: text, isError: true} }
	for where, cs := range clients(t, reg, opts) {
		vc := newValidatingClient(t, cs)
		number := want{text: "7"}
		if vc.modern {
			// Structured content of any value is the stateless
			// revision's.
			number.structured = 7.0
		}
		for _, tc := range []struct {
			name string
			args any
			want want
		}{
			{"point", nil, object(`{"x":1,"y":2}`, map[string]any{"x": 1.0, "y": 2.0})},
			{"point", map[string]any{"none": true}, fails("the tool returned null (no result), not the object its output schema describes")},
			{"point", map[string]any{"long": true}, fails("the result was too large and was cut, so it is not the object the tool's output schema describes; what is left of it:\n")},
			{"counts", map[string]any{"n": 2}, object(`{"0":0,"1":1}`, map[string]any{"0": 0.0, "1": 1.0})},
			{"counts", map[string]any{"n": 0}, fails("the tool returned null (no result)")},
			{"proxied", nil, object(`{"value":"from the server"}`, map[string]any{"value": "from the server"})},
			{"proxied_number", nil, number},
			{"proxied_text", nil, fails("the tool's result is not the object its output schema describes: just text")},
			{"printed", nil, object(`{"n":3}`, map[string]any{"n": 3.0})},
			{"fails", nil, fails("tool_error: it did not work")},
		} {
			res, err := vc.call(tc.name, tc.args)
			if err != nil {
				t.Errorf("%s: %s %v: a validating client refuses the result: %v", where, tc.name, tc.args, err)
				continue
			}
			got := text(t, res)
			if res.IsError != tc.want.isError || !tc.want.isError && got != tc.want.text || tc.want.isError && !strings.Contains(got, tc.want.text) {
				t.Errorf("%s: %s %v: isError %v, text %q; want isError %v, text %q", where, tc.name, tc.args, res.IsError, got, tc.want.isError, tc.want.text)
			}
			if diff := cmp.Diff(tc.want.structured, res.StructuredContent); diff != "" {
				t.Errorf("%s: %s %v: structured content (-want +got):\n%s", where, tc.name, tc.args, diff)
			}
		}
	}

	// The records are those of kesoku run: what the tool returned,
	// whatever the client was answered.
	recs := store.all()
	if len(recs) != 4*10 {
		t.Fatalf("%d records, want %d", len(recs), 4*10)
	}
	kinds := map[string]int{}
	for _, r := range recs {
		kind := string(r.Content)
		switch {
		case r.Error != nil:
			kind = string(r.Error.Kind)
		case r.Truncated != nil:
			kind = "cut"
		}
		kinds[r.Name+" "+kind]++
	}
	wantKinds := map[string]int{
		`point {"x":1,"y":2}`: 4, "point null": 4, "point cut": 4,
		`counts {"0":0,"1":1}`: 4, "counts null": 4,
		`proxied {"value":"from the server"}`: 4, "proxied_number 7": 4, `proxied_text "just text"`: 4,
		`printed {"n":3}`: 4, "fails tool_error": 4,
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

// On the wire, as a client that reads the JSON itself sees it: an
// object's result has structuredContent and the same JSON as its text; an
// error has no structuredContent at all, not even null.
func TestStructuredWire(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(structuredTools(t), testOptions(t)).Handler(""))
	t.Cleanup(srv.Close)
	for _, version := range []string{modern, legacy} {
		c := newRawClient(t, srv.URL+Path, version)
		if version < modern {
			c.mustInitialize()
		}
		for _, tc := range []struct {
			name string
			args map[string]any
			want string // the result's structuredContent, "" for none
		}{
			{"point", map[string]any{}, `{"x":1,"y":2}`},
			{"point", map[string]any{"none": true}, ""},
			{"fails", map[string]any{}, ""},
		} {
			resp, err := c.callTool(context.Background(), tc.name, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := resp.toolResult(t)
			var res map[string]json.RawMessage
			if err := json.Unmarshal(resp.result, &res); err != nil {
				t.Fatal(err)
			}
			sc, has := res["structuredContent"]
			switch {
			case tc.want == "" && has:
				t.Errorf("%s: %s %v: structuredContent %s, want none", version, tc.name, tc.args, sc)
			case tc.want != "" && (string(sc) != tc.want || text != tc.want):
				t.Errorf("%s: %s %v: structuredContent %s, text %q; want %s as both", version, tc.name, tc.args, sc, text, tc.want)
			}
		}
	}
}
