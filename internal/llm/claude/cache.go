package claude

import (
	"github.com/anthropics/anthropic-sdk-go/v2"
)

// Claude caches a prompt's prefix only where a request marks it, with a
// cache_control breakpoint on a block; at most four per request. A
// session sends the same tools, system prompt and history again every
// turn, longer by the turn before; marked, each turn reads what came
// before from the cache at a tenth of the price, and pays a quarter more
// once for what it adds. The four breakpoints go on:
//
//  1. the last tool definition: the tools, which never change;
//  2. the system prompt;
//  3. the end of the conversation the turn before sent: the prefix it
//     wrote to the cache, found again however many blocks the last turn
//     added (Claude looks back only about twenty blocks from a
//     breakpoint for an earlier entry);
//  4. the end of the conversation: what the next turn will read.

// markCache puts the cache breakpoints on a session's request.
func markCache(p *anthropic.MessageNewParams) {
	if n := len(p.Tools); n > 0 {
		if c := p.Tools[n-1].GetCacheControl(); c != nil {
			*c = anthropic.NewCacheControlEphemeralParam()
		}
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	msgs := p.Messages
	if len(msgs) == 0 {
		return
	}
	// The turn before ended with the user message before the model's
	// last turn.
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].OfAssistant != nil {
			markLastBlock(msgs[i-1])
			break
		}
	}
	markLastBlock(msgs[len(msgs)-1])
}

// markLastBlock puts a breakpoint on the last block of m that can carry
// one: a block echoed raw (a thinking block, a server tool's) cannot.
func markLastBlock(m anthropic.MessageParam) {
	var blocks []anthropic.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if c := blocks[i].GetCacheControl(); c != nil {
			*c = anthropic.NewCacheControlEphemeralParam()
			return
		}
	}
}
