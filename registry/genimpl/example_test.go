package genimpl_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/registry"
	"github.com/kesoku/kesoku/registry/genimpl"
)

// A tool as the code kesoku gen writes registers one: its Spec describes
// the parameters, and its Call decodes them into Go values, naming the
// argument at fault. kesoku's runner validates a call's arguments against
// the Spec before it calls the tool.
func ExampleSpec() {
	reg := registry.New() // generated code calls Register, for registry.Default
	reg.MustRegister(&genimpl.Spec{
		Name:        "shout",
		Summary:     "Shouts a word.",
		Description: "Shouts a word.",
		Params: []*genimpl.Property{{
			Name:     "word",
			Required: true,
			Schema:   &genimpl.Schema{Type: genimpl.TypeString, Description: "The word to shout."},
		}},
		Source:  "shout.go:12",
		Package: "example.com/mytools/tools",
		Call: func(_ context.Context, _ *registry.ToolContext, args map[string]any) (any, error) {
			v := args["word"]
			if v == nil {
				return nil, genimpl.MissingArg("word")
			}
			word, err := genimpl.DecodeString[string](v)
			if err != nil {
				return nil, genimpl.ArgAt(err, "word")
			}
			return strings.ToUpper(word) + "!", nil
		},
	})

	spec, _ := reg.Lookup("shout")
	fmt.Println(spec.Call(context.Background(), &registry.ToolContext{}, map[string]any{"word": "hello"}))
	fmt.Println(spec.Call(context.Background(), &registry.ToolContext{}, map[string]any{"word": 1.0}))
	// Output:
	// HELLO! <nil>
	// <nil> args.word: wrong type: expected string (string), got number 1
}
