package config

import (
	"slices"
)

// rule is what a key means beyond being a flag's default.
type rule struct {
	// refused says why a config file cannot set the key at all.
	refused Refusal
	// path marks a key whose value is a path: relative to the file's own
	// directory, whoever runs kesoku from wherever.
	path bool
	// consequential says what the key decides that a stranger's file must
	// not decide for the user: where data or keys go, or which
	// programs start. A kesoku.yaml found in the AWD that sets it needs
	// the user's approval.
	consequential string
	// section marks a key that is a section of its own, read by the tool
	// sources, not a flag.
	section bool
	// names marks a key whose value names files whose content decides
	// what the config does (the servers of an mcp-config file): approving
	// the config approves their content with it.
	names bool
	// does is what the key lets kesoku do, as kesoku trust shows it, the
	// value (paths resolved) in place of %s.
	does string
}

// rules holds every key with a rule. A flag added later whose value is a
// path, a URL or a program belongs here.
var rules = map[string]rule{
	"awd":    {refused: FindsTheFile},
	"config": {refused: FindsTheFile},
	"resume": {refused: OneRun},
	// A cassette is one run's traffic; a stranger's file choosing it would
	// choose what answers in place of the model, or a file to write.
	"cassette":      {refused: OneRun},
	"cassette-mode": {refused: OneRun},
	// A shard is one machine's share of one run: set in a file, every run
	// found with it would do a part of its requests and say nothing.
	"shard": {refused: OneRun},
	// What a command does, not how: approve refusing, trust revoking.
	"refuse": {refused: OneAction},
	"revoke": {refused: OneAction},
	"check":  {refused: OneAction},
	"force":  {refused: OneAction},
	"help":   {refused: NoSetting},
	// The rules' flags: a file writes its rules in permissions:, which
	// needs approval, not as flag defaults.
	"allow": {refused: InPermissions},
	"ask":   {refused: InPermissions},
	"deny":  {refused: InPermissions},

	"output":     {path: true, consequential: "where records are written", does: "write records to %s"},
	"junit":      {path: true, consequential: "where a JUnit report is written", does: "write a JUnit report to %s"},
	"staging":    {path: true, consequential: "which directory tools may read besides the AWD", does: "let tools read %s besides the working directory"},
	"base-url":   {consequential: "where model requests, and the API key, are sent", does: "send model requests, and the API key, to %s"},
	"mcp-config": {path: true, names: true, consequential: "starts MCP servers", does: "start the MCP servers of %s"},
	// mcp serve: a stranger's file must not open the tools to a network,
	// nor choose the variable whose value lets clients in.
	"http":      {consequential: "where mcp serve offers the tools", does: "serve its tools at %s (mcp serve)"},
	"token-env": {consequential: "which variable holds the token that lets mcp serve's clients in", does: "let in the MCP clients that send the token held in $%s (mcp serve)"},

	// Command tools and MCP servers start programs.
	"tools":      {section: true, consequential: "starts the programs of command tools"},
	"mcpServers": {section: true, consequential: "starts MCP servers"},
	// Hooks start programs too, at every call.
	"hooks": {section: true, consequential: "starts the programs of hooks"},
	// A stranger's prices could make --max-budget-usd spend without bound.
	"prices": {section: true, consequential: "what models cost, which --max-budget-usd counts"},
	// Rules decide which calls a model's tools make run unasked.
	"permissions": {section: true, consequential: "which tool calls run, are asked about, or are denied"},
}

// NeedsApproval reports whether key decides something that a stranger's
// file must not decide for the user: a kesoku.yaml found in the AWD that
// sets it is loaded only once approved.
func NeedsApproval(key string) bool { return rules[key].consequential != "" }

// Consequence says what key decides that needs the user's approval
// ("where records are written"), "" for a key that needs none.
func Consequence(key string) string { return rules[key].consequential }

// SectionKeys are the keys that are sections of their own (tools,
// mcpServers), sorted.
func SectionKeys() []string {
	var keys []string
	for k, r := range rules {
		if r.section {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
