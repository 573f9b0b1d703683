package llm

import (
	"encoding/json"
	"strconv"
	"strings"
)

// A history kesoku sends must be one a strict provider accepts whatever
// the model sent: Claude refuses every later request of a
// conversation that holds a whitespace-only text block, two tool_use
// blocks with one id, or an id outside ^[a-zA-Z0-9_-]+$, and --resume
// would rebuild the same history for ever. The rules below are applied
// as a model's turn is recorded, and again as a transcript is resumed
// (one written before they existed, or edited by hand).

// maxCallID bounds an id kesoku keeps: the shortest bound among the
// providers' (OpenAI refuses a tool call id over 40 characters: "string
// too long. Expected a string with maximum length 40").
const maxCallID = 40

// validCallID reports whether id is one every provider takes: 1 to
// maxCallID letters, digits, _ and -. (A regexp for it, compiled at init,
// cost every process 41 kB.)
func validCallID(id string) bool {
	if len(id) == 0 || len(id) > maxCallID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !callIDByte(id[i]) {
			return false
		}
	}
	return true
}

func callIDByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// callIDs hands out the ids of a session's tool calls: the model's own
// where it is valid and not yet used, otherwise one made from it. The
// same sequence of ids always gets the same answers, so that a resumed
// transcript rebuilds the ids the live session used.
type callIDs struct {
	used map[string]bool
	// next is the suffix to try next for a base: a model that sends one
	// id a thousand times costs no more than a thousand ids.
	next map[string]int
}

// assign returns the id a call the model named id goes by.
func (c *callIDs) assign(id string) string {
	if c.used == nil {
		c.used, c.next = make(map[string]bool), make(map[string]int)
	}
	if validCallID(id) && !c.used[id] {
		c.used[id] = true
		return id
	}
	base := strings.Map(func(r rune) rune {
		if r < 0x80 && callIDByte(byte(r)) {
			return r
		}
		return '_'
	}, id)
	if base == "" {
		base = "call"
	}
	if len(base) <= maxCallID && !c.used[base] {
		c.used[base] = true
		return base
	}
	for n := max(2, c.next[base]); ; n++ {
		suffix := "_" + strconv.Itoa(n)
		cand := base[:min(len(base), maxCallID-len(suffix))] + suffix
		if !c.used[cand] {
			c.used[cand] = true
			c.next[base] = n + 1
			return cand
		}
	}
}

// visibleText is text as it may go to a provider: text that is only
// whitespace (Claude's "\n\n" before a tool_use) is no text at all.
func visibleText(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// isThought reports whether a part's provider data marks it as the
// model's reasoning rather than its answer: a Gemini thought summary
// ("thought": true) or a Claude thinking block. A transcript keeps that
// only in the provider data; a resumed session must not send another
// provider's thought as visible text.
func isThought(data json.RawMessage) bool {
	if len(data) == 0 {
		return false
	}
	var head struct {
		Thought bool   `json:"thought"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil {
		return false
	}
	return head.Thought || head.Type == "thinking" || head.Type == "redacted_thinking"
}
