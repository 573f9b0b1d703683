package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kesoku/kesoku/internal/jsonschema"
)

// Expect is what a case expects of its session. A zero field checks
// nothing.
type Expect struct {
	// ToolsCalled are tools each called at least once; ToolsNotCalled
	// tools never called.
	ToolsCalled    []string
	ToolsNotCalled []string
	// Sequence, when set, is the calls the session must make.
	Sequence *Sequence
	// Answer, when set, is what the answer must be.
	Answer *AnswerCheck
	// MaxTurns and MaxTokens bound the model requests of the case and the
	// tokens they used (input and output); 0 is no bound.
	MaxTurns  int
	MaxTokens int64
}

// Tools are the names of the tools e checks, each once, sorted.
func (e *Expect) Tools() []string {
	names := slices.Concat(e.ToolsCalled, e.ToolsNotCalled)
	if e.Sequence != nil {
		for _, c := range e.Sequence.Calls {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// The modes of a Sequence.
const (
	// Exact: the calls are exactly these, in this order.
	Exact = "exact"
	// InOrder: these calls happen in this order, others between them.
	InOrder = "in_order"
	// AnyOrder: each of these calls happens, in any order.
	AnyOrder = "any_order"
)

// Modes are the modes a Sequence may have.
var Modes = []string{Exact, InOrder, AnyOrder}

// Sequence is the tool calls a session must make.
type Sequence struct {
	Calls []Call
	// Mode is Exact, InOrder or AnyOrder.
	Mode string
}

// Call is a tool call: its tool's name and its arguments. Expected, Args
// may give only some keys: a call matches when each given key is equal,
// the others ignored.
type Call struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// AnswerCheck is what the answer must be: one of the fields.
type AnswerCheck struct {
	Contains string
	Regex    *regexp.Regexp
	Equals   *string
	// Schema, when set, is a JSON Schema the answer, parsed as JSON,
	// must validate against; SchemaDoc is the document it was compiled
	// from, for the verdict.
	Schema    *jsonschema.Schema
	SchemaDoc json.RawMessage
}

// Outcome is what a case's session did: what the checks look at.
type Outcome struct {
	// Calls are the tool calls the model made, in order.
	Calls []Call
	// Answer is the model's answer; Answered is false when the session
	// ended without one.
	Answer   string
	Answered bool
	// Turns is how many model requests the session made; Tokens the
	// input and output tokens they used. TokensUnknown says a request
	// reported no usage (a server that speaks OpenAI's API without it):
	// Tokens is then less than was used, by an unknown amount.
	Turns         int
	Tokens        int64
	TokensUnknown bool
}

// Result is one check of a verdict.
type Result struct {
	Check  string `json:"check"`
	Passed bool   `json:"passed"`
	Want   any    `json:"want"`
	Got    any    `json:"got"`
}

// Check holds o to e: one Result per check, in a fixed order.
func (e *Expect) Check(o Outcome) []Result {
	var out []Result
	add := func(check string, passed bool, want, got any) {
		out = append(out, Result{Check: check, Passed: passed, Want: want, Got: got})
	}
	called := o.calledNames()
	if len(e.ToolsCalled) > 0 {
		missing := slices.DeleteFunc(slices.Clone(e.ToolsCalled), func(n string) bool { return slices.Contains(called, n) })
		add("tools_called", len(missing) == 0, e.ToolsCalled, called)
	}
	if len(e.ToolsNotCalled) > 0 {
		var wrong []string
		for _, n := range e.ToolsNotCalled {
			if slices.Contains(called, n) {
				wrong = append(wrong, n)
			}
		}
		add("tools_not_called", len(wrong) == 0, e.ToolsNotCalled, called)
	}
	if s := e.Sequence; s != nil {
		add("tool_sequence."+s.Mode, s.matches(o.Calls), s.Calls, o.Calls)
	}
	if a := e.Answer; a != nil {
		a.check(o, add)
	}
	if e.MaxTurns > 0 {
		add("max_turns", o.Turns <= e.MaxTurns, e.MaxTurns, o.Turns)
	}
	switch {
	case e.MaxTokens > 0 && o.TokensUnknown:
		// What was not counted cannot be held to a bound.
		add("max_tokens", false, e.MaxTokens, nil)
	case e.MaxTokens > 0:
		add("max_tokens", o.Tokens <= e.MaxTokens, e.MaxTokens, o.Tokens)
	}
	return out
}

// calledNames are the distinct names of o's calls, in the order first
// called.
func (o Outcome) calledNames() []string {
	names := []string{}
	for _, c := range o.Calls {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

func (a *AnswerCheck) check(o Outcome, add func(string, bool, any, any)) {
	var got any = o.Answer
	if !o.Answered {
		got = nil
	}
	switch {
	case a.Equals != nil:
		add("answer.equals", o.Answered && strings.TrimSpace(o.Answer) == strings.TrimSpace(*a.Equals), *a.Equals, got)
	case a.Regex != nil:
		add("answer.regex", o.Answered && a.Regex.MatchString(o.Answer), a.Regex.String(), got)
	case a.Schema != nil:
		passed, why := false, "no answer"
		if o.Answered {
			passed, why = a.validates(o.Answer)
		}
		want := a.SchemaDoc
		if passed {
			add("answer.json_schema", true, want, got)
		} else {
			add("answer.json_schema", false, want, map[string]any{"answer": got, "problem": why})
		}
	default:
		add("answer.contains", o.Answered && strings.Contains(o.Answer, a.Contains), a.Contains, got)
	}
}

// validates parses answer as JSON — the inside of a fenced code block
// when the model wrote one, as models often do — and validates it.
func (a *AnswerCheck) validates(answer string) (bool, string) {
	text := strings.TrimSpace(answer)
	if inner, ok := strings.CutPrefix(text, "```"); ok && strings.HasSuffix(inner, "```") {
		inner = strings.TrimSuffix(inner, "```")
		if nl := strings.IndexByte(inner, '\n'); nl >= 0 {
			inner = inner[nl+1:] // the fence's language: ```json
		}
		text = strings.TrimSpace(inner)
	}
	v, err := jsonschema.Decode([]byte(text))
	if err != nil {
		return false, "the answer is not JSON: " + err.Error()
	}
	if err := a.Schema.Validate(v); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// matches reports whether calls are what s expects.
func (s *Sequence) matches(calls []Call) bool {
	switch s.Mode {
	case Exact:
		if len(calls) != len(s.Calls) {
			return false
		}
		for i := range calls {
			if !s.Calls[i].matches(calls[i]) {
				return false
			}
		}
		return true
	case InOrder:
		i := 0
		for _, c := range calls {
			if i < len(s.Calls) && s.Calls[i].matches(c) {
				i++
			}
		}
		return i == len(s.Calls)
	default:
		return anyOrder(s.Calls, calls)
	}
}

// anyOrder reports whether each wanted call can be matched with a call of
// its own: a bipartite matching, since a call that matches two wanted
// ones ({name: f} and {name: f, args: {a: 1}}) must go to the one that
// needs it.
func anyOrder(want, calls []Call) bool {
	owner := make([]int, len(calls)) // the wanted call each call serves, -1 for none
	for i := range owner {
		owner[i] = -1
	}
	var assign func(w int, seen []bool) bool
	assign = func(w int, seen []bool) bool {
		for c := range calls {
			if seen[c] || !want[w].matches(calls[c]) {
				continue
			}
			seen[c] = true
			if owner[c] < 0 || assign(owner[c], seen) {
				owner[c] = w
				return true
			}
		}
		return false
	}
	for w := range want {
		if !assign(w, make([]bool, len(calls))) {
			return false
		}
	}
	return true
}

// matches reports whether got is the call w expects: the same name, and
// each argument w gives equal to got's.
func (w Call) matches(got Call) bool {
	if w.Name != got.Name {
		return false
	}
	if len(bytes.TrimSpace(w.Args)) == 0 {
		return true
	}
	want, err := decodeObject(w.Args)
	if err != nil {
		return false
	}
	have, err := decodeObject(got.Args)
	if err != nil {
		return false
	}
	for k, v := range want {
		hv, ok := have[k]
		if !ok || !equal(v, hv) {
			return false
		}
	}
	return true
}

func decodeObject(data []byte) (map[string]any, error) {
	v, err := jsonschema.Decode(data)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

// equal compares two JSON values by value: numbers by their value (1 is
// 1.0, as a model may send either), objects whatever their keys' order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		// As float64: a model's 1e999999 must cost nothing to compare.
		fx, errx := strconv.ParseFloat(x.String(), 64)
		fy, erry := strconv.ParseFloat(y.String(), 64)
		return errx == nil && erry == nil && fx == fy
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
