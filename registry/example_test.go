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

	// kesoku's runner validates a call's arguments against the tool's
	// schema first; here a test calls it directly.
	spec, _ := reg.Lookup("greet")
	args := map[string]any{"name": "kesoku", "times": 2.0, "style": "loud"}
	fmt.Println(spec.Call(context.Background(), &registry.ToolContext{}, args))
	// Output:
	// {HELLO KESOKU! HELLO KESOKU!} <nil>
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
	// Output:
	// args.timezone: invalid value: unknown time zone "Mars/Olympus"
}
