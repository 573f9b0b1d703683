package tools

import (
	"context"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/registry"
)

// A typed tool: registry.Add registers it from the tags of its arguments'
// struct, with no doc comment and no kesoku gen. It sits in one registry
// with the doc-comment tools of tools.go.
func init() {
	if err := registry.Add(registry.Default, "reverse", "Reverses a text, letter by letter or word by word.", Reverse); err != nil {
		panic(err)
	}
}

// ReverseArgs are reverse's arguments.
type ReverseArgs struct {
	Text string `json:"text" description:"The text to reverse."`
	By   string `json:"by,omitempty" enum:"letters,words" description:"What to reverse: its letters (the default) or its words."`
}

// Reversed is what reverse returns; being a struct, it is the tool's
// output schema too.
type Reversed struct {
	Text  string `json:"text" description:"The text reversed."`
	Parts int    `json:"parts" description:"How many letters or words it has."`
}

// Reverse reverses a text.
func Reverse(_ context.Context, _ *registry.ToolContext, in ReverseArgs) (Reversed, error) {
	if in.By == "words" {
		words := strings.Fields(in.Text)
		slices.Reverse(words)
		return Reversed{Text: strings.Join(words, " "), Parts: len(words)}, nil
	}
	runes := []rune(in.Text)
	slices.Reverse(runes)
	return Reversed{Text: string(runes), Parts: len(runes)}, nil
}
