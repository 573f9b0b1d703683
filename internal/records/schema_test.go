package records

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/jsonschema"
	"github.com/kesoku/kesoku/message"
)

// compileSchema compiles the records' schema as a consumer would.
func compileSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	doc, err := jsonschema.Decode(Schema("v1.2.3"))
	if err != nil {
		t.Fatalf("the schema is no JSON: %v", err)
	}
	s, err := jsonschema.Compile(SchemaID("v1.2.3"), doc, jsonschema.Options{})
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s, doc.(map[string]any)
}

func TestSchemaIDNamesTheVersion(t *testing.T) {
	t.Parallel()
	_, doc := compileSchema(t)
	if id := doc["$id"]; id != SchemaID("v1.2.3") || !strings.Contains(id.(string), "/v1.2.3/") {
		t.Errorf("$id = %v", id)
	}
	if got := doc["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", got)
	}
	if id := SchemaID("(devel)"); strings.ContainsAny(id, "() ") {
		t.Errorf("SchemaID((devel)) = %q: not a URL's path", id)
	}
}

// jsonFields are the JSON names of a struct's fields, and which of them
// are always written (no omitempty).
func jsonFields(t reflect.Type) (all, always []string) {
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") {
			always = append(always, name)
		}
	}
	slices.Sort(all)
	slices.Sort(always)
	return all, always
}

func schemaFields(t *testing.T, s map[string]any) (all, required []string) {
	t.Helper()
	for k := range s["properties"].(map[string]any) {
		all = append(all, k)
	}
	for _, r := range s["required"].([]any) {
		required = append(required, r.(string))
	}
	slices.Sort(all)
	slices.Sort(required)
	return all, required
}

// The schema has every field of the record, and of the objects in it,
// no more, and requires those always written: a field added to the
// record without the schema fails here.
func TestSchemaHasEveryField(t *testing.T) {
	t.Parallel()
	_, doc := compileSchema(t)
	props := doc["properties"].(map[string]any)
	for _, tc := range []struct {
		schema map[string]any
		typ    reflect.Type
	}{
		{doc, reflect.TypeFor[message.Record]()},
		{props["error"].(map[string]any), reflect.TypeFor[message.ErrorInfo]()},
		{props["truncated"].(map[string]any), reflect.TypeFor[message.Truncation]()},
		{props["usage"].(map[string]any), reflect.TypeFor[message.Usage]()},
	} {
		all, always := jsonFields(tc.typ)
		got, required := schemaFields(t, tc.schema)
		if !slices.Equal(got, all) {
			t.Errorf("%s: the schema's properties %v, the fields %v", tc.typ, got, all)
		}
		if !slices.Equal(required, always) {
			t.Errorf("%s: the schema requires %v, the fields always written are %v", tc.typ, required, always)
		}
		if ap, ok := tc.schema["additionalProperties"]; !ok || ap != false {
			t.Errorf("%s: additionalProperties is not false: a field of no schema would pass", tc.typ)
		}
	}
	// Every error kind, and only those.
	kinds := props["error"].(map[string]any)["properties"].(map[string]any)["kind"].(map[string]any)["enum"].([]any)
	want := []any{"invalid_request", "unknown_tool", "invalid_args", "tool_error", "panic", "timeout", "aborted", "budget", "denied", "deferred"}
	if !slices.Equal(kinds, want) {
		t.Errorf("error kinds %v, want %v", kinds, want)
	}
}

func checkRecord(t *testing.T, s *jsonschema.Schema, rec *message.Record) error {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// The records the Packer makes, the one maker of tool results, are valid;
// records that break the schema's rules are not.
func TestSchemaValidatesRecords(t *testing.T) {
	t.Parallel()
	s, _ := compileSchema(t)
	p := &Packer{SessionID: "s", MaxOutput: 1 << 20, AWD: t.TempDir()}
	c := Call{ID: "call_1", Name: "calculate_sum"}
	for _, rec := range []*message.Record{
		p.Pack(c, Outcome{Value: map[string]int{"sum": 3}}, time.Millisecond),
		p.Pack(c, Outcome{Err: errors.New("no")}, time.Millisecond),
		p.Refused(c, ErrInvalidArgs, "args.a: missing"),
		p.Unanswered(c),
		p.Aborted(c, "interrupted", 0),
		p.Pack(c, Outcome{Err: context.Canceled, Cut: true}, time.Millisecond),
		p.Pack(c, Outcome{Err: context.DeadlineExceeded, TimedOut: true, Timeout: time.Second}, time.Second),
		p.Pack(c, Outcome{Panicked: "boom"}, time.Millisecond),
	} {
		rec.ID = message.NewID()
		rec.ArgsHash = ArgsHash(map[string]any{"a": 1})
		rec.Position = 1
		if err := checkRecord(t, s, rec); err != nil {
			t.Errorf("%+v: %v", rec, err)
		}
		// A traced run's records carry the ids of their trace and span.
		rec.TraceID, rec.SpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
		if err := checkRecord(t, s, rec); err != nil {
			t.Errorf("traced %+v: %v", rec, err)
		}
	}
	if err := checkRecord(t, s, ShardEndRecord("s", ShardEnd{Shard: 2, Shards: 3, Requests: 10})); err != nil {
		t.Errorf("a shard's end: %v", err)
	}
	good := func() *message.Record {
		return &message.Record{ID: "i", SessionID: "s", Role: message.RoleTool, Type: message.TypeToolResult, Status: message.StatusResponded, CreatedAt: time.Now()}
	}
	for name, bad := range map[string]func(r *message.Record){
		"an error without is_error": func(r *message.Record) { r.Error = &message.ErrorInfo{Kind: message.KindToolError, Message: "x"} },
		"an unknown kind":           func(r *message.Record) { r.IsError, r.Error = true, &message.ErrorInfo{Kind: "oops", Message: "x"} },
		"aborted of another kind": func(r *message.Record) {
			r.Status, r.IsError, r.Error = message.StatusAborted, true, &message.ErrorInfo{Kind: message.KindTimeout}
		},
		"a tool result of the user": func(r *message.Record) { r.Role = message.RoleUser },
		"a text that is no string": func(r *message.Record) {
			r.Type, r.Role, r.Content = message.TypeText, message.RoleUser, json.RawMessage(`{}`)
		},
		"a tool call without its name": func(r *message.Record) { r.Type, r.Role = message.TypeToolCall, message.RoleAssistant },
		"an args_hash not hex":         func(r *message.Record) { r.ArgsHash = "not hex" },
		"a trace id without its span":  func(r *message.Record) { r.TraceID = "4bf92f3577b34da6a3ce929d0e0e4736" },
		"a span id in upper case": func(r *message.Record) {
			r.TraceID, r.SpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00F067AA0BA902B7"
		},
		"a shard's end that says no shard": func(r *message.Record) {
			r.Type, r.Content = TypeShardEnd, json.RawMessage(`{"shard":0,"shards":2,"requests":4}`)
		},
		"a shard's end without its content": func(r *message.Record) { r.Type = TypeShardEnd },
	} {
		r := good()
		if err := checkRecord(t, s, r); err != nil {
			t.Fatalf("the good record: %v", err)
		}
		bad(r)
		if err := checkRecord(t, s, r); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
}
