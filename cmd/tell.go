package cmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/termtext"
)

// teller says on standard error what the work below cmd tells the user
// as it goes: a "kesoku: " line each, text from outside escaped; -q holds
// back warnings, and only -v lets through what is going on. One command's
// notices come from several goroutines (analyze_media calls, MCP servers)
// and go out a line at a time.
type teller struct {
	mu             sync.Mutex
	w              io.Writer
	quiet, verbose bool
}

// Tell implements notice.Teller.
func (t *teller) Tell(level notice.Level, msg string) {
	switch {
	case level == notice.Info && !t.verbose, level == notice.Warning && t.quiet:
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "kesoku: %s\n", termtext.Lines(msg))
}

// tell is the command's teller, made at first use.
func (g *globals) tell() *teller {
	if g.teller == nil {
		g.teller = &teller{w: g.IO.Err, quiet: g.Quiet, verbose: g.Verbose}
	}
	return g.teller
}

// showCalls shows the tool calls of a session's turn on standard error, a
// line each: the model chose the names and the arguments, which are
// escaped.
func (g *globals) showCalls(calls []*llm.ToolCall) {
	t := g.tell()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range calls {
		fmt.Fprintf(t.w, "  → %s %s\n", termtext.Escape(c.Name), termtext.Escape(argsLine(string(c.Args), 200)))
	}
}

// argsLine is a call's arguments on one line, cut at limit bytes (never
// inside a character).
func argsLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		for limit > 0 && !utf8.RuneStart(s[limit]) {
			limit--
		}
		s = s[:limit] + "…"
	}
	return s
}

// prompter is the person at the terminal of an interactive session
// (llm.Prompter): prompts read a line at a time from standard input after
// the prompt sign, and what became of each said on standard error.
type prompter struct {
	t       *teller
	in      *bufio.Reader
	greeted bool
}

func (g *globals) prompter() *prompter {
	return &prompter{t: g.tell(), in: bufio.NewReader(g.IO.In)}
}

// say writes s to standard error as it is: the prompter's own words.
func (p *prompter) say(s string) {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	io.WriteString(p.t.w, s)
}

func (p *prompter) Prompt() (string, error) {
	if !p.greeted && !p.t.quiet {
		p.say("Type a prompt and press Enter; Ctrl-C interrupts a turn, Ctrl-D ends the session.\n")
	}
	p.greeted = true
	p.say("> ")
	return p.in.ReadString('\n')
}

func (p *prompter) Refused(err error) {
	p.say(fmt.Sprintf("kesoku: %v; type it again\n", err))
}

func (p *prompter) Interrupted() { p.say("interrupted\n") }

func (p *prompter) InterruptedAtPrompt() { p.say("\n(Ctrl-D ends the session)\n> ") }

func (p *prompter) Failed(err error) {
	p.say(fmt.Sprintf("kesoku: %s\n", termtext.Lines(errorText(err))))
}

func (p *prompter) Ended(transcript string) {
	p.say("\n")
	if !p.t.quiet {
		p.say(fmt.Sprintf("transcript: %s\n", transcript))
	}
}

var _ llm.Prompter = (*prompter)(nil)
