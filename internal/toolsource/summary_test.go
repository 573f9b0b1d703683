package toolsource

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// summaryDescription has an abbreviation whose full stop ends no sentence
// and a tab after the one that does: the summary is the whole first
// sentence, as for a tool of kesoku's own.
const (
	summaryDescription = "Counts words, e.g. in a file.\tThen says how many."
	wantSummary        = "Counts words, e.g. in a file."
)

// TestSummaryAsForOwnTools: a command tool and an MCP server's tool are
// summed up by the rule kesoku gen applies to a tool's doc comment.
func TestSummaryAsForOwnTools(t *testing.T) {
	t.Parallel()
	tool, err := parseTestTool(t, "tools:\n  t:\n    command: [cat]\n    description: \""+summaryDescription+"\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.spec(nil).Summary; got != wantSummary {
		t.Errorf("command tool: summary %q, want %q", got, wantSummary)
	}
	s := &server{decl: &serverDecl{name: "fake"}}
	spec, err := s.spec(&mcp.Tool{Name: "t", Description: summaryDescription, InputSchema: map[string]any{"type": "object"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.Summary; got != wantSummary {
		t.Errorf("MCP tool: summary %q, want %q", got, wantSummary)
	}
}
