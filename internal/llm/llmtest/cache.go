package llmtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// The fake Claude keeps a prompt cache as the real API does
// (platform.claude.com/docs/en/build-with-claude/prompt-caching), so
// that a test sees what caching saves:
//
//   - A request is a sequence of blocks: the tools, then the system
//     prompt's blocks, then the messages' content blocks. A block that
//     carries cache_control is a breakpoint.
//   - At each breakpoint whose prefix holds at least ClaudeMinCacheTokens,
//     the prefix up to it is written to the cache.
//   - A request reads the longest prefix found in the cache that ends at
//     a breakpoint or at one of the twenty blocks before it.
//   - What it reads is cache_read_input_tokens; what it writes beyond
//     that, up to its last breakpoint, cache_creation_input_tokens; the
//     rest, input_tokens.
//
// Tokens are counted as everywhere in the fake: one for four bytes (of
// each block's JSON). Entries never expire: a test is shorter than the
// five minutes they live.

// The real API's constants of the prompt cache.
const (
	// ClaudeMinCacheTokens is the shortest prefix Claude caches (Sonnet
	// and Opus): a breakpoint before it writes nothing.
	ClaudeMinCacheTokens = 1024
	// ClaudeCacheLookback is how many blocks before a breakpoint Claude
	// looks for an entry written earlier.
	ClaudeCacheLookback = 20
	// ClaudeMaxBreakpoints is how many blocks of a request may carry
	// cache_control.
	ClaudeMaxBreakpoints = 4
)

// promptCache is the fake's cache: the prefixes written, by hash.
type promptCache struct {
	mu      sync.Mutex
	entries map[[32]byte]bool
}

// cacheBlock is one block of a request as the cache sees it: the hash of
// the prefix that ends with it, the tokens up to it, and whether it is a
// breakpoint.
type cacheBlock struct {
	prefix     [32]byte
	tokens     int64
	breakpoint bool
}

// use reads and writes the cache for a request's body and returns, in
// tokens, the prompt (its blocks, cache_control left out, as Claude
// counts no markup), what it read and what it wrote.
func (c *promptCache) use(body []byte) (prompt, read, written int64) {
	blocks := cacheBlocks(body)
	if len(blocks) == 0 {
		return tokens(len(body)), 0, 0
	}
	prompt = blocks[len(blocks)-1].tokens
	c.mu.Lock()
	defer c.mu.Unlock()
	last := -1
	for i, b := range blocks {
		if !b.breakpoint {
			continue
		}
		last = i
		for j := i; j >= 0 && j >= i-ClaudeCacheLookback; j-- {
			if c.entries[blocks[j].prefix] {
				read = max(read, blocks[j].tokens)
				break
			}
		}
	}
	if last < 0 {
		return prompt, 0, 0
	}
	if c.entries == nil {
		c.entries = map[[32]byte]bool{}
	}
	for _, b := range blocks[:last+1] {
		if b.breakpoint && b.tokens >= ClaudeMinCacheTokens {
			c.entries[b.prefix] = true
		}
	}
	if end := blocks[last].tokens; end >= ClaudeMinCacheTokens && end > read {
		written = end - read
	}
	return prompt, read, written
}

// cacheBlocks is a Messages request as a sequence of blocks, in the
// order of its prefix: tools, system, messages.
func cacheBlocks(body []byte) []cacheBlock {
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	var out []cacheBlock
	h := sha256.New()
	var total int64
	add := func(kind string, raw json.RawMessage) {
		var v map[string]any
		if json.Unmarshal(raw, &v) != nil {
			var s string
			json.Unmarshal(raw, &s)
			v = map[string]any{"type": "text", "text": s}
		}
		_, marked := v["cache_control"]
		delete(v, "cache_control")
		canon, _ := json.Marshal(v)
		h.Write([]byte(kind))
		h.Write(canon)
		total += tokens(len(canon))
		var b cacheBlock
		copy(b.prefix[:], h.Sum(nil))
		b.tokens, b.breakpoint = total, marked
		out = append(out, b)
	}
	for _, t := range req.Tools {
		add("tool", t)
	}
	for _, b := range rawBlocks(req.System) {
		add("system", b)
	}
	for _, m := range req.Messages {
		for _, b := range rawBlocks(m.Content) {
			add(m.Role, b)
		}
	}
	return out
}

// rawBlocks is content as blocks: a string is one text block.
func rawBlocks(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		return []json.RawMessage{raw}
	}
	var blocks []json.RawMessage
	json.Unmarshal(raw, &blocks)
	return blocks
}
