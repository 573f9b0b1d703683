package registry_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// A tool registered by hand, as the code kesoku gen writes registers one:
// its Spec describes the parameters, and its Call decodes them into Go
// values. The runner validates a call's arguments against the Spec before
// it calls the tool.
func Example() {
	reg := registry.New()
	reg.MustRegister(&registry.Spec{
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
	content := message.AppendString(nil, note)
	err := tc.Store.Append(ctx, &message.Record{
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
