package toolspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// demoSpec has a parameter of every kind validation distinguishes.
func demoSpec() *testSpec {
	return &testSpec{
		Name: "demo",
		Params: []*Property{
			{Name: "a", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int"}},
			{Name: "b", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int32"}},
			{Name: "mode", Schema: &Schema{Type: TypeString, GoType: "*tools.Mode", Enum: []string{"fast", "slow"}}},
			{Name: "ratio", Schema: &Schema{Type: TypeNumber, GoType: "*float32"}},
			{Name: "small", Schema: &Schema{Type: TypeInteger, GoType: "*int8"}},
			{Name: "count", Schema: &Schema{Type: TypeInteger, GoType: "*uint8"}},
			{Name: "big", Schema: &Schema{Type: TypeInteger, GoType: "*uint64"}},
			{Name: "verbose", Schema: &Schema{Type: TypeBoolean, GoType: "*bool"}},
			{Name: "items", Schema: &Schema{Type: TypeArray, GoType: "[]tools.Item", Items: &Schema{
				Type: TypeObject, GoType: "tools.Item",
				Properties: []*Property{
					{Name: "name", Required: true, Schema: &Schema{Type: TypeString, GoType: "string"}},
					{Name: "size", Schema: &Schema{Type: TypeInteger, GoType: "*int"}},
				},
			}}},
			{Name: "opts", Schema: &Schema{Type: TypeObject, GoType: "*tools.Options", Properties: []*Property{
				{Name: "mode", Required: true, Schema: &Schema{Type: TypeString, GoType: "tools.Mode", Enum: []string{"fast", "slow"}}},
				{Name: "depth", Schema: &Schema{Type: TypeInteger, GoType: "int"}},
			}}},
			{Name: "labels", Schema: &Schema{Type: TypeObject, GoType: "map[string]string", AdditionalProperties: &Schema{Type: TypeString, GoType: "string"}}},
			{Name: "weights", Schema: &Schema{Type: TypeObject, GoType: "map[string]*float64", AdditionalProperties: &Schema{Type: TypeNumber, GoType: "*float64"}}},
			{Name: "tags", Schema: &Schema{Type: TypeArray, GoType: "[]string", Items: &Schema{Type: TypeString, GoType: "string"}}},
			{Name: "extra", Schema: &Schema{Type: TypeObject, GoType: "map[string]any"}},
		},
	}
}

// jsonArgs decodes arguments as the runner does from a JSON request.
func jsonArgs(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test arguments %s: %v", s, err)
	}
	return m
}

func jsonNumberArgs(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("bad test arguments %s: %v", s, err)
	}
	return m
}

// problems returns the messages of err's problems, nil when err is nil.
func problems(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ae *ArgsError
	if !errors.As(err, &ae) {
		t.Fatalf("Validate returned %T %v, want *ArgsError", err, err)
	}
	var out []string
	for _, p := range ae.Problems {
		out = append(out, p.Error())
	}
	return out
}

func TestValidateJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args string
		want []string
	}{
		{name: "minimal", args: `{"a": 1, "b": 2}`},
		{name: "integral float is an integer", args: `{"a": 1.0, "b": 2e3}`},
		{name: "everything valid", args: `{"a": -1, "b": 2147483647, "mode": "slow", "ratio": 0.5, "small": -128,
			"count": 255, "big": 1e19, "verbose": true,
			"items": [{"name": "x"}, {"name": "y", "size": 3}], "opts": {"mode": "fast", "depth": 2},
			"labels": {"en": "hello", "a b": "c"}, "weights": {"x": 1.5, "y": null}, "tags": ["p", "q"],
			"extra": {"anything": [1, {"goes": null}]}}`},
		{name: "null optional is absent", args: `{"a": 1, "b": 2, "mode": null, "opts": null, "items": null}`},
		{name: "optional struct field null", args: `{"a": 1, "b": 2, "items": [{"name": "x", "size": null}]}`},
		{name: "empty args", args: `{}`, want: []string{
			`args.a: missing required argument: expected integer (int)`,
			`args.b: missing required argument: expected integer (int32)`,
		}},
		{name: "null required", args: `{"a": null, "b": 2}`, want: []string{
			`args.a: missing required argument: expected integer (int), got null`,
		}},
		{name: "string for integer", args: `{"a": "3", "b": 2}`, want: []string{
			`args.a: wrong type: expected integer (int), got string "3"`,
		}},
		{name: "fraction for integer", args: `{"a": 1.5, "b": 2}`, want: []string{
			`args.a: wrong type: expected integer (int), got number 1.5`,
		}},
		{name: "bool array object for integer", args: `{"a": true, "b": [1]}`, want: []string{
			`args.a: wrong type: expected integer (int), got boolean true`,
			`args.b: wrong type: expected integer (int32), got array of 1 item`,
		}},
		{name: "int32 overflow", args: `{"a": 1, "b": 2147483648}`, want: []string{
			`args.b: out of range: expected integer (int32) from -2147483648 to 2147483647, got number 2147483648`,
		}},
		{name: "int8 and uint8 ranges", args: `{"a": 1, "b": 2, "small": -129, "count": -1}`, want: []string{
			`args.small: out of range: expected integer (int8) from -128 to 127, got number -129`,
			`args.count: out of range: expected integer (uint8) from 0 to 255, got number -1`,
		}},
		{name: "int overflow", args: `{"a": 1e19, "b": 1e300}`, want: []string{
			`args.a: out of range: expected integer (int) from -9223372036854775808 to 9223372036854775807, got number 10000000000000000000`,
			`args.b: out of range: expected integer (int32) from -2147483648 to 2147483647, got number 1e+300`,
		}},
		{name: "float32 overflow", args: `{"a": 1, "b": 2, "ratio": 1e39}`, want: []string{
			`args.ratio: out of range: expected a finite number (float32), got number 1e+39`,
		}},
		{name: "number as string", args: `{"a": 1, "b": 2, "ratio": "0.5"}`, want: []string{
			`args.ratio: wrong type: expected number (float32), got string "0.5"`,
		}},
		{name: "bool as string", args: `{"a": 1, "b": 2, "verbose": "true"}`, want: []string{
			`args.verbose: wrong type: expected boolean, got string "true"`,
		}},
		{name: "enum miss with suggestion", args: `{"a": 1, "b": 2, "mode": "fas"}`, want: []string{
			`args.mode: not one of the allowed values: expected one of "fast", "slow", got string "fas" (did you mean "fast"?)`,
		}},
		{name: "enum case", args: `{"a": 1, "b": 2, "mode": "SLOW"}`, want: []string{
			`args.mode: not one of the allowed values: expected one of "fast", "slow", got string "SLOW" (did you mean "slow"?)`,
		}},
		{name: "enum far miss", args: `{"a": 1, "b": 2, "mode": "quickly"}`, want: []string{
			`args.mode: not one of the allowed values: expected one of "fast", "slow", got string "quickly"`,
		}},
		{name: "enum wrong type", args: `{"a": 1, "b": 2, "mode": 1}`, want: []string{
			`args.mode: wrong type: expected string, one of "fast", "slow", got number 1`,
		}},
		{name: "unknown with suggestion", args: `{"a": 1, "b": 2, "modes": "fast"}`, want: []string{
			`args.modes: unknown argument: expected one of a, b, mode, ratio, small, count, big, verbose, items, opts, labels, weights, tags, extra (did you mean "mode"?)`,
		}},
		{name: "unknown sorted, with missing", args: `{"zz": 1, "c": 2, "a": 1}`, want: []string{
			`args.b: missing required argument: expected integer (int32)`,
			`args.c: unknown argument: expected one of a, b, mode, ratio, small, count, big, verbose, items, opts, labels, weights, tags, extra (did you mean "b"?)`,
			`args.zz: unknown argument: expected one of a, b, mode, ratio, small, count, big, verbose, items, opts, labels, weights, tags, extra`,
		}},
		{name: "unknown key that needs quoting", args: `{"a": 1, "b": 2, "x y": 1}`, want: []string{
			`args["x y"]: unknown argument: expected one of a, b, mode, ratio, small, count, big, verbose, items, opts, labels, weights, tags, extra`,
		}},
		{name: "array item fields", args: `{"a": 1, "b": 2, "items": [{"name": "x"}, {"name": "y"}, {"nam": "z", "size": "big"}]}`, want: []string{
			`args.items[2].name: missing required field: expected string`,
			`args.items[2].size: wrong type: expected integer (int), got string "big"`,
			`args.items[2].nam: unknown field: expected one of name, size (did you mean "name"?)`,
		}},
		{name: "array item wrong type", args: `{"a": 1, "b": 2, "items": ["x", null], "tags": ["p", 3, null]}`, want: []string{
			`args.items[0]: wrong type: expected object with fields name, size, got string "x"`,
			`args.items[1]: wrong type: expected object with fields name, size, got null`,
			`args.tags[1]: wrong type: expected string, got number 3`,
			`args.tags[2]: wrong type: expected string, got null`,
		}},
		{name: "array given a scalar", args: `{"a": 1, "b": 2, "tags": "p"}`, want: []string{
			`args.tags: wrong type: expected array of string, got string "p"`,
		}},
		{name: "nested struct", args: `{"a": 1, "b": 2, "opts": {"mode": "medium", "depth": 1.25}}`, want: []string{
			`args.opts.mode: not one of the allowed values: expected one of "fast", "slow", got string "medium"`,
			`args.opts.depth: wrong type: expected integer (int), got number 1.25`,
		}},
		{name: "nested struct missing and null", args: `{"a": 1, "b": 2, "opts": {"mode": null}}`, want: []string{
			`args.opts.mode: missing required field: expected string, one of "fast", "slow", got null`,
		}},
		{name: "struct given a list", args: `{"a": 1, "b": 2, "opts": ["fast"]}`, want: []string{
			`args.opts: wrong type: expected object with fields mode, depth, got array of 1 item`,
		}},
		{name: "map values in key order", args: `{"a": 1, "b": 2, "labels": {"zh": 3, "en": true, "ok": "x", "a b": null}}`, want: []string{
			`args.labels["a b"]: wrong type: expected string, got null`,
			`args.labels.en: wrong type: expected string, got boolean true`,
			`args.labels.zh: wrong type: expected string, got number 3`,
		}},
		{name: "map given a string", args: `{"a": 1, "b": 2, "labels": "en=hi"}`, want: []string{
			`args.labels: wrong type: expected object with string values, got string "en=hi"`,
		}},
		{name: "long string shortened", args: `{"a": "` + strings.Repeat("é", 40) + `", "b": 2}`, want: []string{
			`args.a: wrong type: expected integer (int), got string "` + strings.Repeat("é", 30) + `"… (80 bytes)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, demoSpec().Validate(jsonArgs(t, tt.args)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateNumberKinds feeds the values YAML decoders and json.Number
// produce.
func TestValidateNumberKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{name: "yaml ints", args: map[string]any{"a": uint64(1), "b": int64(-2), "small": int(5), "count": uint8(7), "ratio": int64(3)}},
		{name: "every int kind", args: map[string]any{"a": int8(1), "b": int16(2), "small": int32(3), "count": uint16(4), "big": uint(5)}},
		{name: "more int kinds", args: map[string]any{"a": uint32(1), "b": uintptr(2), "ratio": float32(0.5)}},
		{name: "json numbers", args: map[string]any{"a": json.Number("1"), "b": json.Number("2.0"), "big": json.Number("18446744073709551615"), "ratio": json.Number("1e3")}},
		{name: "extreme ints", args: map[string]any{"a": int64(math.MinInt64), "b": int64(math.MinInt32), "big": uint64(math.MaxUint64)}},
		{name: "yaml uint64 beyond int", args: map[string]any{"a": uint64(math.MaxUint64), "b": 1}, want: []string{
			`args.a: out of range: expected integer (int) from -9223372036854775808 to 9223372036854775807, got number 18446744073709551615`,
		}},
		{name: "json number beyond uint64", args: map[string]any{"a": 1, "b": 1, "big": json.Number("18446744073709551616")}, want: []string{
			`args.big: out of range: expected integer (uint64) from 0 to 18446744073709551615, got number 18446744073709551616`,
		}},
		{name: "json number fraction", args: map[string]any{"a": json.Number("1.5"), "b": json.Number("1e400")}, want: []string{
			`args.a: wrong type: expected integer (int), got number 1.5`,
			`args.b: out of range: expected integer (int32) from -2147483648 to 2147483647, got number 1e400`,
		}},
		{name: "bad json number", args: map[string]any{"a": json.Number("x"), "b": 1, "ratio": json.Number("y")}, want: []string{
			`args.a: wrong type: expected integer (int), got number x`,
			`args.ratio: wrong type: expected number (float32), got number y`,
		}},
		{name: "yaml nan and inf", args: map[string]any{"a": math.NaN(), "b": math.Inf(1), "ratio": math.Inf(-1)}, want: []string{
			`args.a: wrong type: expected integer (int), got number NaN`,
			`args.b: out of range: expected integer (int32) from -2147483648 to 2147483647, got number +Inf`,
			`args.ratio: out of range: expected a finite number (float32), got number -Inf`,
		}},
		{name: "negative for unsigned", args: map[string]any{"a": 1, "b": 1, "big": int64(-1)}, want: []string{
			`args.big: out of range: expected integer (uint64) from 0 to 18446744073709551615, got number -1`,
		}},
		{name: "go value of another type", args: map[string]any{"a": 1, "b": 1, "tags": []string{"x"}}, want: []string{
			`args.tags: wrong type: expected array of string, got []string value`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, demoSpec().Validate(tt.args))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateUseNumber(t *testing.T) {
	t.Parallel()
	args := jsonNumberArgs(t, `{"a": 1.0, "b": -7, "ratio": 2.5, "items": [{"name": "x", "size": 1e2}]}`)
	if err := demoSpec().Validate(args); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestValidateNoParams(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "current_time"}
	if err := s.Validate(nil); err != nil {
		t.Errorf("Validate(nil): %v", err)
	}
	err := s.Validate(map[string]any{"tz": "UTC"})
	want := `tool "current_time": args.tz: unknown argument: expected no arguments`
	if err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
	if !IsInvalidArgs(err) {
		t.Errorf("IsInvalidArgs(%v) = false", err)
	}
}

func TestValidateCapsProblems(t *testing.T) {
	t.Parallel()
	tags := make([]any, 1000)
	for i := range tags {
		tags[i] = i
	}
	err := demoSpec().Validate(map[string]any{"a": 1, "b": 2, "tags": tags})
	var ae *ArgsError
	if !errors.As(err, &ae) {
		t.Fatalf("Validate = %v, want *ArgsError", err)
	}
	if len(ae.Problems) != maxProblems || ae.Omitted != 1000-maxProblems {
		t.Errorf("got %d problems and %d omitted, want %d and %d", len(ae.Problems), ae.Omitted, maxProblems, 1000-maxProblems)
	}
	if !strings.HasSuffix(err.Error(), "; and 980 more problems") {
		t.Errorf("message does not count the omitted problems: %s", err)
	}
}

// TestValidateMapCapDeterministic checks that a map whose wrong values
// overflow the cap still reports the same problems every time.
func TestValidateMapCapDeterministic(t *testing.T) {
	t.Parallel()
	labels := map[string]any{}
	for i := range 50 {
		labels[string(rune('A'+i%26))+strings.Repeat("x", i/26)] = i
	}
	first := demoSpec().Validate(map[string]any{"a": 1, "b": 2, "labels": labels}).Error()
	for range 20 {
		if got := demoSpec().Validate(map[string]any{"a": 1, "b": 2, "labels": labels}).Error(); got != first {
			t.Fatalf("message changed between runs:\n%s\n%s", first, got)
		}
	}
	if !strings.Contains(first, "args.labels.A: wrong type") {
		t.Errorf("first key in order not reported: %s", first)
	}
}

func TestValidateWholeMessage(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "calculate_sum", Params: []*Property{
		{Name: "a", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int"}},
		{Name: "b", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int"}},
	}}
	err := s.Validate(jsonArgs(t, `{"a": "1", "bb": 2}`))
	want := `tool "calculate_sum": args.a: wrong type: expected integer (int), got string "1"; ` +
		`args.b: missing required argument: expected integer (int); ` +
		`args.bb: unknown argument: expected one of a, b (did you mean "b"?)`
	if err == nil || err.Error() != want {
		t.Errorf("Validate =\n%v\nwant\n%s", err, want)
	}
}

func TestValidateZeroAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counting")
	}
	s := sumSpec()
	args := jsonArgs(t, `{"a": 12345, "b": 67890}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := s.Validate(args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Validate allocates %v times on success, want 0", n)
	}
	nested := demoSpec()
	nargs := jsonArgs(t, `{"a": 1, "b": 2, "mode": "fast", "items": [{"name": "x", "size": 1}], "opts": {"mode": "slow"}, "labels": {"k": "v"}, "tags": ["t"]}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := nested.Validate(nargs); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Validate allocates %v times on nested success, want 0", n)
	}
}

func sumSpec() *testSpec {
	return &testSpec{Name: "calculate_sum", Params: []*Property{
		{Name: "a", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int"}},
		{Name: "b", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int"}},
	}}
}

func BenchmarkValidateSum(b *testing.B) {
	s := sumSpec()
	args := jsonArgs(b, `{"a": 12345, "b": 67890}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateNested(b *testing.B) {
	s := demoSpec()
	args := jsonArgs(b, `{"a": 1, "b": 2, "mode": "fast", "items": [{"name": "x", "size": 1}, {"name": "y"}], "opts": {"mode": "slow", "depth": 3}, "labels": {"k": "v", "l": "w"}, "tags": ["t", "u"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	s := sumSpec()
	args := jsonArgs(b, `{"a": "1", "bb": 2}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(args); err == nil {
			b.Fatal("no error")
		}
	}
}

// FuzzValidate feeds arbitrary JSON arguments: Validate must never panic,
// and must either accept them or name at least one problem, each with a
// path and a message.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": 2}`,
		`{"a": "1", "bb": 2, "x y": null}`,
		`{"a": 1e300, "b": -0.5, "small": -129, "mode": "fsat"}`,
		`{"items": [{"name": 1}, null, "x"], "opts": {"mode": null, "z": 1}, "labels": {"": 1, "a.b": null}}`,
		`{"weights": {"x": null, "y": "1"}, "tags": [[]], "extra": {"k": [1, {}]}}`,
	} {
		f.Add(s)
	}
	spec := demoSpec()
	f.Fuzz(func(t *testing.T, s string) {
		var args map[string]any
		d := json.NewDecoder(strings.NewReader(s))
		if len(s)%2 == 0 {
			d.UseNumber()
		}
		if d.Decode(&args) != nil {
			t.Skip()
		}
		err := spec.Validate(args)
		if err == nil {
			return
		}
		var ae *ArgsError
		if !errors.As(err, &ae) || len(ae.Problems) == 0 {
			t.Fatalf("Validate = %T %v, want an *ArgsError with problems", err, err)
		}
		for _, p := range ae.Problems {
			if p.Path == "" || p.Problem == "" {
				t.Errorf("problem without path or message: %+v", p)
			}
		}
		if again := spec.Validate(args); again.Error() != err.Error() {
			t.Errorf("message changed between runs:\n%s\n%s", err, again)
		}
	})
}
