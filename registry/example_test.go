package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// A typed tool: its arguments are the fields of a struct, described by
// tags, and Add registers it without a doc comment or kesoku gen. A call
// is validated and decoded as a doc-comment tool's generated code would
// do it, and a result that is a struct is the tool's output schema too.
func ExampleAdd() {
	type greetArgs struct {
		Name  string `json:"name" description:"Who to greet."`
		Times *int   `json:"times,omitempty" description:"How many times; once when left out."`
		Style string `json:"style,omitempty" enum:"plain,loud" description:"How to say it."`
	}
	type greeting struct {
		Text string `json:"text" description:"The greeting."`
	}
	reg := registry.New() // registry.Default in a program
	err := registry.Add(reg, "greet", "Says hello to someone.", func(_ context.Context, _ *registry.ToolContext, in greetArgs) (greeting, error) {
		text := "hello " + in.Name
		if in.Style == "loud" {
			text = strings.ToUpper(text) + "!"
		}
		n := 1
		if in.Times != nil {
			n = *in.Times
		}
		return greeting{Text: strings.TrimSpace(strings.Repeat(text+" ", n))}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	spec, _ := reg.Lookup("greet")
	fmt.Println(string(spec.InputSchema()))
	fmt.Println(string(spec.OutputSchema()))
	args := map[string]any{"name": "kesoku", "times": 2.0, "style": "loud"}
	if err := spec.Validate(args); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Call(context.Background(), &registry.ToolContext{}, args))
	fmt.Println(spec.Validate(map[string]any{"name": "kesoku", "style": "lowd"}))
	// Output:
	// {"type":"object","properties":{"name":{"type":"string","description":"Who to greet."},"times":{"type":"integer","description":"How many times; once when left out."},"style":{"type":"string","description":"How to say it.","enum":["plain","loud"]}},"required":["name"],"additionalProperties":false}
	// {"type":"object","properties":{"text":{"type":"string","description":"The greeting."}},"required":["text"],"additionalProperties":false}
	// {HELLO KESOKU! HELLO KESOKU!} <nil>
	// tool "greet": args.style: not one of the allowed values: expected one of "plain", "loud", got string "lowd" (did you mean "loud"?)
}

// A tool registered by hand, as the code kesoku gen writes registers one:
// its Spec describes the parameters, and its Call decodes them into Go
// values. The runner validates a call's arguments against the Spec before
// it calls the tool.
func ExampleRegistry_Register() {
	reg := registry.New()
	err := reg.Register(&registry.Spec{
		Name:        "shout",
		Summary:     "Shouts a word.",
		Description: "Shouts a word.",
		Params: []*registry.Property{{
			Name:     "word",
			Required: true,
			Schema:   &registry.Schema{Type: registry.TypeString, Description: "The word to shout."},
		}},
		Call: func(_ context.Context, _ *registry.ToolContext, args map[string]any) (any, error) {
			word, err := registry.DecodeString[string](args["word"])
			if err != nil {
				return nil, registry.ArgAt(err, "word")
			}
			return strings.ToUpper(word) + "!", nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	spec, _ := reg.Lookup("shout")
	args := map[string]any{"word": "hello"}
	if err := spec.Validate(args); err != nil {
		fmt.Println(err)
		return
	}
	out, err := spec.Call(context.Background(), &registry.ToolContext{}, args)
	fmt.Println(out, err)

	// A model's mistake is told back so that it can correct itself.
	fmt.Println(spec.Validate(map[string]any{"wrod": "hello"}))
	// Output:
	// HELLO! <nil>
	// tool "shout": args.word: missing required argument: expected string; args.wrod: unknown argument: expected one of word (did you mean "word"?)
}

// memoryStore keeps records in memory: the smallest message.Store.
type memoryStore struct{ recs []*message.Record }

func (s *memoryStore) Append(_ context.Context, recs ...*message.Record) error {
	s.recs = append(s.recs, recs...)
	return nil
}

// remember is a tool that takes a *registry.ToolContext: it keeps a note
// in the session's store, pointing to the tool call that asked for it.
//
// Args:
//
//	note: What to remember.
//
//kesoku:tool
func remember(ctx context.Context, tc *registry.ToolContext, note string) (string, error) {
	content, err := json.Marshal(note)
	if err != nil {
		return "", err
	}
	err = tc.Store.Append(ctx, &message.Record{
		ID:        message.NewID(),
		SessionID: tc.SessionID,
		ParentID:  tc.OriginalMsgID,
		Role:      message.RoleTool,
		Type:      message.TypeText,
		Status:    message.StatusResponded,
		Content:   content,
	})
	if err != nil {
		return "", err
	}
	return "noted", nil
}

// A tool receives the ToolContext of its call: the runner fills it for
// every call; here a test fills it by hand.
func ExampleToolContext() {
	store := &memoryStore{}
	tc := &registry.ToolContext{SessionID: "demo", OriginalMsgID: "call_1", Store: store, AWD: "/work"}
	out, err := remember(context.Background(), tc, "buy milk")
	fmt.Println(out, err)
	for _, r := range store.recs {
		fmt.Println(r.SessionID, r.ParentID, string(r.Content))
	}
	// Output:
	// noted <nil>
	// demo call_1 "buy milk"
}

// A tool blames an argument with InvalidArg: its record then says
// invalid_args, the model's mistake, rather than tool_error.
func ExampleInvalidArg() {
	err := registry.InvalidArg("timezone", errors.New(`unknown time zone "Mars/Olympus"`))
	fmt.Println(err)
	fmt.Println(registry.IsInvalidArgs(err))
	// Output:
	// args.timezone: invalid value: unknown time zone "Mars/Olympus"
	// true
}

// The input schema of a tool is the JSON Schema every provider's format
// is built from.
func ExampleSpec_InputSchema() {
	spec := &registry.Spec{
		Name: "add",
		Params: []*registry.Property{
			{Name: "a", Required: true, Schema: &registry.Schema{Type: registry.TypeInteger, Kind: "int"}},
			{Name: "b", Schema: &registry.Schema{Type: registry.TypeInteger, Kind: "int", Default: []byte("0")}},
		},
	}
	fmt.Println(string(spec.InputSchema()))
	// Output:
	// {"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","default":0}},"required":["a"],"additionalProperties":false}
}

// Select finds tools by name, and names the closest one for a typo.
func ExampleRegistry_Select() {
	reg := registry.New()
	for _, name := range []string{"read_file", "write_file"} {
		reg.MustRegister(&registry.Spec{Name: name, Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			return nil, nil
		}})
	}
	_, err := reg.Select([]string{"read_fiel"})
	fmt.Println(err)
	// Output:
	// unknown tool "read_fiel"; did you mean "read_file"? known tools: read_file, write_file
}
