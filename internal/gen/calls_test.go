package gen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/gen/testdata/src/basic"
	_ "github.com/kesoku/kesoku/internal/gen/testdata/src/clash"
	_ "github.com/kesoku/kesoku/internal/gen/testdata/src/kinds"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// The test packages' generated files (the golden files, which TestGolden
// holds equal to what gen writes) register their tools in registry.Default
// when imported: these tests call them as the runner would.

func lookup(t testing.TB, name string) *toolset.Tool {
	t.Helper()
	s, ok := registry.Default.Lookup(name)
	if !ok {
		t.Fatalf("tool %q is not registered", name)
	}
	return toolset.FromSpec(s)
}

func TestGeneratedCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool    string
		args    string // JSON, decoded as the runner decodes it
		yaml    map[string]any
		want    string // the result as JSON
		wantErr string
	}{
		{tool: "calculate_sum", args: `{"a": 1, "b": 2}`, want: `3`},
		{tool: "calculate_sum", args: `{"a": 1.0, "b": -2e3}`, want: `-1999`},
		{tool: "calculate_sum", yaml: map[string]any{"a": int64(1), "b": uint64(2)}, want: `3`},
		{tool: "calculate_sum", yaml: map[string]any{"a": json.Number("40"), "b": 2}, want: `42`},
		{tool: "calculate_sum", args: `{"a": 1.5, "b": 2}`, wantErr: "args.a: wrong type: expected integer (int), got number 1.5"},
		{tool: "calculate_sum", args: `{"a": "1", "b": 2}`, wantErr: `args.a: wrong type: expected integer (int), got string "1"`},
		{tool: "calculate_sum", args: `{"b": 2}`, wantErr: "args.a: missing required argument"},
		{tool: "calculate_sum", args: `{"a": null, "b": 2}`, wantErr: "args.a: missing required argument"},
		{tool: "calculate_sum", args: `{"a": 1e30, "b": 2}`, wantErr: "args.a: out of range: expected integer (int) from -9223372036854775808 to 9223372036854775807, got number 1e+30"},

		{tool: "say_hello", args: `{"name": "Ada"}`, want: `"hello, Ada"`},
		{tool: "say_hello", args: `{"name": "Ada", "style": null}`, want: `"hello, Ada"`},
		{tool: "say_hello", args: `{"name": "Ada", "style": "loud"}`, want: `"HELLO, Ada!"`},
		{tool: "say_hello", args: `{"name": "Ada", "style": "lod"}`, wantErr: `args.style: not one of the allowed values: expected one of "plain", "loud", got string "lod" (did you mean "loud"?)`},

		{tool: "sleep", args: `{"seconds": 0}`, want: `null`},
		{tool: "sleep", args: `{"seconds": "1"}`, wantErr: `args.seconds: wrong type: expected number (float64), got string "1"`},
		{tool: "touch", args: `{"path": "a.txt"}`, want: `null`},

		{tool: "scalars", args: `{"s": "x", "b": true, "i": -1, "i8": -128, "i16": 32767, "i32": 7, "i64": 9007199254740992, "u": 1, "u8": 255, "u16": 65535, "u32": 4294967295, "u64": 1, "f32": 0.5, "f64": 1e300, "c": 9, "d": 1000}`,
			want: `["x",true,-1,-128,32767,7,9007199254740992,1,255,65535,4294967295,1,0.5,1e+300,9,1000]`},
		{tool: "scalars", args: `{"s": "x", "b": true, "i": -1, "i8": 128, "i16": 0, "i32": 0, "i64": 0, "u": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f32": 0, "f64": 0, "c": 0, "d": 0}`,
			wantErr: "args.i8: out of range: expected integer (int8) from -128 to 127, got number 128"},
		{tool: "scalars", args: `{"s": "x", "b": true, "i": -1, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "u": -1, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f32": 0, "f64": 0, "c": 0, "d": 0}`,
			wantErr: "args.u: out of range: expected integer (uint) from 0 to 18446744073709551615, got number -1"},
		{tool: "scalars", args: `{"s": "x", "b": true, "i": -1, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "u": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f32": 1e39, "f64": 0, "c": 0, "d": 0}`,
			wantErr: "args.f32: out of range: expected a finite number (float32), got number 1e+39"},
		{tool: "scalars", args: `{"s": "x", "b": true, "i": -1, "i8": 0, "i16": 0, "i32": 0, "i64": 0, "u": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "f32": 0, "f64": 0, "c": 256, "d": 0}`,
			wantErr: "args.c: out of range: expected integer (kinds.Count) from 0 to 255, got number 256"},

		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1}}`,
			want: `{"page":1,"q":{"text":"go","mode":"exact","Untagged":1}}`},
		{tool: "search", args: `{"q": {"trace": true, "text": "go", "mode": "fuzzy", "limit": 5, "langs": ["en", "ja"], "near": {"x": 1, "y": 2.5}, "boost": {"title": 2}, "Untagged": 0, "unknown": 1}, "page": 3, "mode": "prefix"}`,
			want: `{"mode":"prefix","page":3,"q":{"trace":true,"text":"go","mode":"fuzzy","limit":5,"langs":["en","ja"],"near":{"x":1,"y":2.5},"boost":{"title":2},"Untagged":0}}`},
		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1, "limit": null, "near": null}}`,
			want: `{"page":1,"q":{"text":"go","mode":"exact","Untagged":1}}`},
		{tool: "search", args: `{"q": {"mode": "exact", "Untagged": 1}}`, wantErr: "args.q.text: missing required field"},
		{tool: "search", args: `{"q": {"text": "go", "mode": "regex", "Untagged": 1}}`,
			wantErr: `args.q.mode: not one of the allowed values: expected one of "exact", "prefix", "fuzzy", got string "regex"`},
		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1}, "mode": "fuzzy"}`,
			wantErr: `args.mode: not one of the allowed values: expected one of "exact", "prefix", got string "fuzzy"`},
		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1, "near": {"x": 1, "y": "2"}}}`,
			wantErr: `args.q.near.y: wrong type: expected number (float64), got string "2"`},
		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1, "langs": ["en", 3]}}`,
			wantErr: `args.q.langs[1]: wrong type: expected string (kinds.Lang), got number 3`},
		{tool: "search", args: `{"q": {"text": "go", "mode": "exact", "Untagged": 1, "boost": {"a b": true}}}`,
			wantErr: `args.q.boost["a b"]: wrong type: expected number (float32), got boolean true`},
		{tool: "search", args: `{"q": [1]}`, wantErr: `args.q: wrong type: expected object, got array of 1 item`},

		{tool: "collections", args: `{"tags": ["a"], "grid": [[1, 2], []], "points": [{"x": 0, "y": 1}], "optional": [null, {"x": 2, "y": 3}], "scores": {"ada": 3}, "byLang": {"en": {"text": "t", "mode": "exact", "Untagged": 2}}}`,
			want: `{"byLang":{"en":{"text":"t","mode":"exact","Untagged":2}},"grid":[[1,2],[]],"optional":[null,{"x":2,"y":3}],"points":[{"x":0,"y":1}],"scores":{"ada":3},"sizes":["m"],"tags":["a"]}`},
		{tool: "collections", args: `{"tags": [], "grid": [[1]], "points": [], "optional": [], "scores": {}, "byLang": {}}`,
			wantErr: `args.grid: wrong length: expected array of 2 items, got array of 1 item`},
		{tool: "collections", args: `{"tags": [], "grid": [[], [1, 2.5]], "points": [], "optional": [], "scores": {}, "byLang": {}}`,
			wantErr: `args.grid[1][1]: wrong type: expected integer (int), got number 2.5`},
		{tool: "collections", args: `{"tags": [], "grid": [[], []], "points": [{"x": 0, "y": 0}, {"x": 0}], "optional": [], "scores": {}, "byLang": {}}`,
			wantErr: `args.points[1].y: missing required field`},
		{tool: "collections", args: `{"tags": [], "grid": [[], []], "points": [null], "optional": [], "scores": {}, "byLang": {}}`,
			wantErr: `args.points[0]: wrong type: expected object, got null`},
		{tool: "collections", args: `{"tags": [], "grid": [[], []], "points": [], "optional": [], "scores": {}, "byLang": {"en us": {}}}`,
			wantErr: `args.byLang["en us"].text: missing required field`},
		{tool: "collections", args: `{"tags": [], "grid": [[], []], "points": [], "optional": [], "scores": {}, "byLang": {}, "sizes": ["s", "xl"]}`,
			wantErr: `args.sizes[1]: not one of the allowed values: expected one of "s", "m", "l", got string "xl" (did you mean "l"?)`},

		{tool: "defaults", args: `{}`,
			want: `{"at":{"x":1,"y":2},"big":18446744073709551615,"flag":true,"mode":"fuzzy","n":3,"none":null,"number":"10","opt":7,"quoted":"a, b. c","ratio":0.5,"word":"utf-8"}`},
		{tool: "defaults", args: `{"word": "w", "opt": null, "none": 1, "at": {"x": 0, "y": 0}, "mode": "exact", "flag": false}`,
			want: `{"at":{"x":0,"y":0},"big":18446744073709551615,"flag":false,"mode":"exact","n":3,"none":1,"number":"10","opt":7,"quoted":"a, b. c","ratio":0.5,"word":"w"}`},

		{tool: "join", args: `{"sep": "-", "parts": ["a", "b", "c"]}`, want: `"a-b-c"`},
		{tool: "join", args: `{"sep": "-"}`, want: `""`},
		{tool: "join", args: `{"sep": "-", "parts": "a"}`, wantErr: `args.parts: wrong type: expected array, got string "a"`},

		{tool: "echo", args: `{"err": "a", "ctx": 2, "items": [{"out": "b"}]}`, want: `"a, a, b"`},
		{tool: "measure", args: `{"w": {"from": 2, "to": 1}, "unit": "ft"}`, want: `"ft:||-|"`},
		{tool: "measure", args: `{"w": {"from": 1}}`, want: `"m:|-end"`},
		{tool: "measure", args: `{"w": {"from": 1}, "unit": "yd"}`, wantErr: `args.unit: not one of the allowed values: expected one of "m", "ft", got string "yd"`},
		{tool: "echo", args: `{"err": "a", "ctx": 1, "registry": "+", "time": 5, "items": [{"out": "b"}, {}]}`, wantErr: "args.items[1].out: missing required field"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", i, tt.tool), func(t *testing.T) {
			t.Parallel()
			args := tt.yaml
			if args == nil {
				if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
					t.Fatal(err)
				}
			}
			got, err := lookup(t, tt.tool).Call(context.Background(), nil, args)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Call(%s) = %v, want error %q", tt.args, got, tt.wantErr)
				}
				if !toolspec.IsInvalidArgs(err) {
					t.Errorf("error %T is not about the arguments", err)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Call(%s): %v", tt.args, err)
			}
			enc, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(enc)); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGeneratedCallInjects(t *testing.T) {
	t.Parallel()
	got, err := lookup(t, "who_am_i").Call(context.Background(), &registry.ToolContext{SessionID: "s1"}, nil)
	if err != nil || got != "s1" {
		t.Errorf("who_am_i = %v, %v; want s1", got, err)
	}
	if _, err := lookup(t, "who_am_i").Call(context.Background(), nil, nil); err == nil || toolspec.IsInvalidArgs(err) {
		t.Errorf("who_am_i without a ToolContext: error %v, want the tool's own error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = lookup(t, "sleep").Call(ctx, nil, map[string]any{"seconds": 60.0})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("sleep with a cancelled context: %v, want context.Canceled", err)
	}
	_, err = lookup(t, "search").Call(ctx, nil, map[string]any{"q": map[string]any{"text": "x", "mode": "exact", "Untagged": 1.0}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("search with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestGeneratedTouchWrites(t *testing.T) {
	s := lookup(t, "touch")
	if !s.Writes {
		t.Error("touch is not marked Writes")
	}
	if _, err := s.Call(context.Background(), nil, map[string]any{"path": "marker"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(basic.Touched(), ","), "marker") {
		t.Errorf("touch was not called: %v", basic.Touched())
	}
}

// TestGeneratedCallAllocs holds the hot path to its promise: calling
// calculate_sum through its generated Call allocates only the boxed
// result.
func TestGeneratedCallAllocs(t *testing.T) {
	call := lookup(t, "calculate_sum").Call
	args := map[string]any{"a": 12345.0, "b": 67890.0}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := call(ctx, nil, args); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Call allocated %v times per call, want at most 1 (the result)", allocs)
	}
}

// BenchmarkCallCalculateSum is the generated Call on the benchmark's
// request; compare with BenchmarkDirectCalculateSum, the function called
// with values already typed.
func BenchmarkCallCalculateSum(b *testing.B) {
	call := lookup(b, "calculate_sum").Call
	args := map[string]any{"a": 12345.0, "b": 67890.0}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call(ctx, nil, args); err != nil {
			b.Fatal(err)
		}
	}
}

var sink any

func BenchmarkDirectCalculateSum(b *testing.B) {
	b.ReportAllocs()
	a, c := 12345, 67890
	for b.Loop() {
		sink = basic.CalculateSum(a, c)
	}
}

// BenchmarkDecodeCallEncode is the whole per-request work the generated
// code takes part in, as bench/limit measures its floor: decode the
// request's JSON, call, encode the result.
func BenchmarkDecodeCallEncode(b *testing.B) {
	call := lookup(b, "calculate_sum").Call
	line := []byte(`{"id":"call_1","name":"calculate_sum","args":{"a":12345,"b":67890}}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var req struct {
			ID   string         `json:"id"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			b.Fatal(err)
		}
		out, err := call(ctx, nil, req.Args)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}
