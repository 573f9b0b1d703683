package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/termtext"
)

// permissionFlags are the rules of the command line, which decide with
// the config's which tool calls run: --allow, --ask, --deny (each
// repeatable, a rule each: rules hold commas), and --on-ask, what a call
// the rules ask about becomes with no terminal to ask at.
type permissionFlags struct {
	Allow, Ask, Deny []string
	OnAsk            string
	// deferrable says --on-ask is offered: the command stops at a
	// deferred call, to be resumed (run, session). Elsewhere (mcp serve,
	// eval) an ask with no one to answer it is denied.
	deferrable bool
}

func (p *permissionFlags) register(f *pflag.FlagSet, deferrable bool) {
	p.deferrable = deferrable
	f.StringArrayVar(&p.Allow, "allow", nil, "allow the tool calls RULE matches (TOOL or TOOL(ARG=GLOB,...))")
	f.StringArrayVar(&p.Ask, "ask", nil, "ask before the tool calls RULE matches")
	f.StringArrayVar(&p.Deny, "deny", nil, "never run the tool calls RULE matches")
	names := []string{"allow", "ask", "deny"}
	if deferrable {
		f.StringVar(&p.OnAsk, "on-ask", "deny", "with no terminal, a call to ask about is: deny, or defer (stop; kesoku approve)")
		names = append(names, "on-ask")
	}
	inGroup(f, "permissions", names...)
}

// options are the policy options of the flags: the rules read (a bad
// one is bad usage), what an ask becomes without a terminal, and who
// asks (ask, nil when there is no terminal to ask at).
func (p *permissionFlags) options(ask *terminalAsker) (app.PolicyOptions, error) {
	var o app.PolicyOptions
	for _, l := range []struct {
		v     policy.Verdict
		rules []string
	}{{policy.Allow, p.Allow}, {policy.Ask, p.Ask}, {policy.Deny, p.Deny}} {
		for _, text := range l.rules {
			r, err := policy.ParseRule(l.v, text, "--"+l.v.String())
			if err != nil {
				return o, usageErr(err)
			}
			o.Rules = append(o.Rules, r)
		}
	}
	switch p.OnAsk {
	case "", "deny":
		if p.deferrable {
			o.Unasked = "--on-ask deny (no terminal to ask)"
		}
	case "defer":
		o.OnAsk, o.Unasked = policy.OnAskDefer, "--on-ask defer"
	default:
		return o, usageErrf("--on-ask %s: want deny or defer", strconv.Quote(p.OnAsk))
	}
	if ask != nil {
		o.Asker = ask // a nil *terminalAsker is no Asker
	}
	// Where nothing is resumed, a hook's defer is a denial.
	o.NoDefer = !p.deferrable
	return o, nil
}

// terminalAsker asks at a terminal whether a call runs: the question on
// the terminal's standard error, the answer a line of its standard input
// (y, n, or a: always for this session). One question at a time,
// whatever the calls running at once.
type terminalAsker struct {
	out io.Writer
	// lines hands out the lines read from the terminal, one a request:
	// a line is read only when a question waits for it, so that what is
	// typed otherwise is left for whoever else reads (a session's
	// prompts).
	want  chan struct{}
	lines chan lineOrErr
	once  sync.Once
	in    *bufio.Reader
	mu    sync.Mutex
	// pending says a line was asked for and not taken (the question was
	// given up on): the next question takes it.
	pending bool
	// hold, when set, keeps the terminal's progress bar off while a
	// question waits; it returns what puts it back.
	hold func() (release func())
}

type lineOrErr struct {
	line string
	err  error
}

// newTerminalAsker asks at the terminal of in and out.
func newTerminalAsker(in io.Reader, out io.Writer) *terminalAsker {
	return &terminalAsker{out: out, in: bufio.NewReader(in), want: make(chan struct{}), lines: make(chan lineOrErr)}
}

// asker is the asker of a command whose standard input and error are a
// terminal, and whose standard input is not its data (stdinData); nil
// otherwise: with no one to ask, an ask is never left waiting.
func (g *globals) asker(stdinData bool) *terminalAsker {
	if !g.IO.InTTY || !g.IO.ErrTTY || stdinData {
		return nil
	}
	return newTerminalAsker(g.IO.In, g.IO.Err)
}

func (t *terminalAsker) read() {
	var ended error // the terminal's input ended: every question after gets it
	for range t.want {
		if ended != nil {
			t.lines <- lineOrErr{err: ended}
			continue
		}
		line, err := t.in.ReadString('\n')
		if err != nil && line != "" {
			err = nil
		}
		ended = err
		t.lines <- lineOrErr{strings.TrimSpace(line), err}
	}
}

// Ask asks whether c runs, d being what asked.
func (t *terminalAsker) Ask(ctx context.Context, c *policy.Call, d policy.Decision) (policy.Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.once.Do(func() { go t.read() })
	if t.hold != nil {
		defer t.hold()()
	}
	args, _ := json.Marshal(c.Args)
	fmt.Fprintf(t.out, "kesoku: %s asks about a call of %s:\n  %s\n", termtext.Lines(d.By), termtext.Escape(c.Name), termtext.Lines(clip(string(args), 400)))
	for {
		fmt.Fprint(t.out, "run it? [y]es, [n]o, [a]lways for this session: ")
		if !t.pending {
			select {
			case t.want <- struct{}{}:
				t.pending = true
			case <-ctx.Done():
				fmt.Fprintln(t.out)
				return policy.No, ctx.Err()
			}
		}
		select {
		case l := <-t.lines:
			t.pending = false
			if l.err != nil {
				fmt.Fprintln(t.out)
				return policy.No, l.err
			}
			switch strings.ToLower(l.line) {
			case "y", "yes":
				return policy.Yes, nil
			case "n", "no":
				return policy.No, nil
			case "a", "always":
				return policy.Always, nil
			}
		case <-ctx.Done():
			fmt.Fprintln(t.out)
			return policy.No, ctx.Err()
		}
	}
}

// clip cuts s to n bytes at most, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
