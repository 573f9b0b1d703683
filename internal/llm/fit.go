package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// A turn of many tool calls can return more than a provider takes in one
// request (260 read_file results of 133 KB are 35 MB; Claude refuses 32),
// and a session whose history cannot be sent again is dead: --resume
// would send the same. So a turn's results are bounded as a whole, as
// they join the history: when together they would not fit, the largest
// are cut to their head and tail, each saying so to the model, until they
// do. The bound depends only on the history before them, so that a
// resumed transcript rebuilds the same cut.

// minTurnResults is the least a turn's results are given, whatever the
// history already holds: below it the model could read nothing.
const minTurnResults = 64 << 10

// partOverhead is what each part costs in a request besides its content:
// the JSON around it, the ids, the name.
const partOverhead = 128

// requestLimit is the provider's request limit, 0 when it has none.
func (s *Session) requestLimit() int64 {
	if l, ok := s.opts.Provider.(RequestLimiter); ok {
		return l.MaxRequestBytes()
	}
	return 0
}

// fitResults cuts the results among parts, a turn's results about to
// follow history, so that together they leave the request within the
// provider's limit, with a quarter of it to spare for the system prompt,
// the tools and the next turns.
func (s *Session) fitResults(history []Message, parts []Part) {
	limit := s.requestLimit()
	if limit <= 0 {
		return
	}
	budget := max(limit*3/4-historySize(history), minTurnResults)
	sizes := make([]int64, len(parts))
	var total int64
	for i, p := range parts {
		if p.ToolResult != nil {
			sizes[i] = int64(len(p.ToolResult.Content))
		}
		total += sizes[i] + partOverhead
	}
	if total <= budget {
		return
	}
	limitEach := fairShare(sizes, budget-int64(len(parts))*partOverhead)
	for i, p := range parts {
		if p.ToolResult == nil || sizes[i] <= limitEach {
			continue
		}
		r := *p.ToolResult
		r.Content = cutResult(r.Content, limitEach, len(parts), s.opts.Provider.Name(), limit)
		parts[i].ToolResult = &r
	}
}

// fairShare is the largest size c such that the sizes, each cut to c,
// add up to at most budget: the small ones stay whole, the largest are
// cut alike.
func fairShare(sizes []int64, budget int64) int64 {
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	var below int64
	for i, size := range sorted {
		rest := int64(len(sorted) - i)
		if below+size*rest > budget {
			return max((budget-below)/rest, 0)
		}
		below += size
	}
	return sorted[len(sorted)-1]
}

// cutResult cuts a result's content (JSON) to about limit bytes, its
// head and tail kept, as a JSON string that says what was cut and why.
func cutResult(content json.RawMessage, limit int64, n int, provider string, maxRequest int64) json.RawMessage {
	text := string(content)
	var str string
	if json.Unmarshal(content, &str) == nil {
		text = str
	}
	marker := fmt.Sprintf("\n[... kesoku cut %%d of %d bytes here: this turn's %d results together were too large for one request to %s (at most %d bytes); ask for less at once ...]\n",
		len(text), n, provider, maxRequest)
	keep := max(limit-int64(len(marker))-16, 256)
	if int64(len(text)) <= keep {
		return content
	}
	head, tail := headTail(text, keep)
	out, _ := json.Marshal(head + fmt.Sprintf(marker, len(text)-len(head)-len(tail)) + tail)
	return out
}

// headTail returns the head and tail of s that together fit in limit
// bytes, half each, cut on characters.
func headTail(s string, limit int64) (head, tail string) {
	if int64(len(s)) <= limit {
		return s, ""
	}
	h := int(limit / 2)
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - int(limit/2)
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h], s[t:]
}

// historySize is about how many bytes the history takes in a request.
func historySize(msgs []Message) int64 {
	var n int64
	for _, m := range msgs {
		for _, p := range m.Parts {
			n += partOverhead + int64(len(p.Text)+len(p.ProviderData))
			if c := p.ToolCall; c != nil {
				n += int64(len(c.Args) + len(c.Name) + len(c.ID))
			}
			if r := p.ToolResult; r != nil {
				n += int64(len(r.Content) + len(r.Name) + len(r.CallID))
			}
			if b := p.Blob; b != nil {
				n += int64(base64.StdEncoding.EncodedLen(len(b.Data)) + len(b.URI))
			}
		}
	}
	return n
}
