package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readCases reads the cases of an eval file written in a test.
func readCases(t *testing.T, name, text string) ([]*Case, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return readFile(path)
}

func calls(spec ...string) []Call {
	var out []Call
	for _, s := range spec {
		name, args, _ := strings.Cut(s, " ")
		out = append(out, Call{Name: name, Args: json.RawMessage(args)})
	}
	return out
}

func TestChecks(t *testing.T) {
	t.Parallel()
	made := calls(`calculate_sum {"a":1,"b":2.0}`, `read_file {"path":"a.txt"}`, `calculate_sum {"a":3,"b":4}`)
	for _, tc := range []struct {
		name   string
		expect string // the case's expect, as YAML
		o      Outcome
		passed []bool
	}{
		{"called", "tools_called: [calculate_sum, read_file]", Outcome{Calls: made}, []bool{true}},
		{"not called", "tools_called: [write_file]", Outcome{Calls: made}, []bool{false}},
		{"never called", "tools_not_called: [write_file]", Outcome{Calls: made}, []bool{true}},
		{"called though not to be", "tools_not_called: [read_file]", Outcome{Calls: made}, []bool{false}},
		{"exact", "tool_sequence: [calculate_sum, read_file, calculate_sum]", Outcome{Calls: made}, []bool{true}},
		{"exact, one short", "tool_sequence: [calculate_sum, read_file]", Outcome{Calls: made}, []bool{false}},
		{"exact with args, 2.0 is 2", "tool_sequence: {calls: [{name: calculate_sum, args: {b: 2}}, read_file, calculate_sum], mode: exact}", Outcome{Calls: made}, []bool{true}},
		{"in order", "tool_sequence: {calls: [calculate_sum, {name: calculate_sum, args: {a: 3}}], mode: in_order}", Outcome{Calls: made}, []bool{true}},
		{"in order, out of order", "tool_sequence: {calls: [read_file, {name: calculate_sum, args: {a: 1}}], mode: in_order}", Outcome{Calls: made}, []bool{false}},
		{"any order", "tool_sequence: {calls: [read_file, {name: calculate_sum, args: {a: 3}}, calculate_sum], mode: any_order}", Outcome{Calls: made}, []bool{true}},
		// The plain calculate_sum must take the call the one with args
		// does not need: a greedy match would fail.
		{"any order needs a matching", "tool_sequence: {calls: [calculate_sum, {name: calculate_sum, args: {a: 1}}], mode: any_order}", Outcome{Calls: calls(`calculate_sum {"a":1}`, `calculate_sum {"a":5}`)}, []bool{true}},
		{"any order, one too many", "tool_sequence: {calls: [read_file, read_file], mode: any_order}", Outcome{Calls: made}, []bool{false}},
		{"args differ", "tool_sequence: {calls: [{name: read_file, args: {path: b.txt}}], mode: in_order}", Outcome{Calls: made}, []bool{false}},
		{"contains", "answer: {contains: '3'}", Outcome{Answer: "It is 3.", Answered: true}, []bool{true}},
		{"contains, no answer", "answer: {contains: ''}", Outcome{}, []bool{false}},
		{"regex", `answer: {regex: '^It is \d+\.$'}`, Outcome{Answer: "It is 3.", Answered: true}, []bool{true}},
		{"equals, spaces aside", "answer: {equals: 'It is 3.'}", Outcome{Answer: " It is 3.\n", Answered: true}, []bool{true}},
		{"equals, not", "answer: {equals: 'It is 4.'}", Outcome{Answer: "It is 3.", Answered: true}, []bool{false}},
		{"json schema", "answer: {json_schema: {type: object, required: [sum], properties: {sum: {type: integer}}}}", Outcome{Answer: "```json\n{\"sum\": 3}\n```", Answered: true}, []bool{true}},
		{"json schema, not JSON", "answer: {json_schema: {type: object}}", Outcome{Answer: "three", Answered: true}, []bool{false}},
		{"json schema, wrong", "answer: {json_schema: {type: object, required: [sum]}}", Outcome{Answer: `{"total": 3}`, Answered: true}, []bool{false}},
		{"turns and tokens", "{max_turns: 2, max_tokens: 100}", Outcome{Turns: 2, Tokens: 101}, []bool{true, false}},
		{"tokens not reported", "{max_tokens: 100}", Outcome{Turns: 1, TokensUnknown: true}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			expect := tc.expect
			if !strings.HasPrefix(expect, "{") {
				expect = "{" + expect + "}"
			}
			cases, err := readCases(t, "e.yaml", "prompt: p\nexpect: "+expect+"\n")
			if err != nil {
				t.Fatal(err)
			}
			results := cases[0].Expect.Check(tc.o)
			if len(results) != len(tc.passed) {
				t.Fatalf("%d results, want %d: %+v", len(results), len(tc.passed), results)
			}
			for i, r := range results {
				if r.Passed != tc.passed[i] {
					t.Errorf("%s passed %v, want %v (want %v, got %v)", r.Check, r.Passed, tc.passed[i], r.Want, r.Got)
				}
			}
		})
	}
}

func TestHugeNumbersCostNothing(t *testing.T) {
	t.Parallel()
	w := Call{Name: "f", Args: json.RawMessage(`{"a":1e99999999}`)}
	if w.matches(Call{Name: "f", Args: json.RawMessage(`{"a":2e99999999}`)}) {
		t.Error("two different numbers matched")
	}
}

// readFile reads the cases of the eval file at path as Open reads one
// file, all of them into memory, for tests.
func readFile(path string) ([]*Case, error) {
	var cases []*Case
	r := reader{file: path, ids: exactIDs{}, emit: func(c *Case) error {
		cases = append(cases, c)
		return nil
	}}
	if err := r.read(); err != nil {
		return nil, err
	}
	return cases, nil
}
