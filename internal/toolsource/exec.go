package toolsource

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// stderrTail is how much of the end of a program's standard error a
// failure's message quotes: the last lines, where the reason usually is.
const stderrTail = 2 << 10

// noLimitCapture is how much standard output a command tool may print
// when --max-output sets no limit (0): it is held whole, for the record
// to hold whole; past it the program is stopped rather than fill the
// memory. With a limit, the output past it goes to a file as it comes
// (outputSink).
const noLimitCapture = 64 << 20

// processes runs programs in process groups of their own and remembers the
// groups alive, so that none outlives kesoku: Close kills what is left.
//
// A child that leaves its group (setsid, setpgid) escapes a group's kill.
// With reap (Linux), kesoku is a child subreaper, so that such a child
// becomes kesoku's own once its parent exits; each program is started
// with a mark its children inherit, in two places (markVar in its
// environment, and a descriptor of a file named after it: markFile),
// so that an orphan is known for the child of which program even when it
// cleared its environment. Orphans are stopped
// when the program they came from has ended (at once when kesoku stopped
// it, at the next sweep otherwise), and every one left when kesoku stops;
// their exits are collected (wait4 of their own pid: never of a program
// that os/exec waits for).
type processes struct {
	grace time.Duration
	// guard hears of every group, to kill those left should kesoku be
	// killed outright.
	guard *guardian
	reap  bool
	// mark begins the marks of this kesoku's programs: "<pid>-<random>".
	mark string

	mu        sync.Mutex
	groups    map[int]string // the leader's pid: the program's mark
	seq       int
	closed    bool
	subreaper bool
	subreaped bool // becomeSubreaper was tried
	lastSweep time.Time
	notReaped []int
}

// markVar, in the environment of a program kesoku starts, says which
// kesoku started it, and which of its programs.
const markVar = "KESOKU_PROCESS"

// maxSweepRounds bounds the rounds of a look for orphans.
const maxSweepRounds = 64

// sweepEvery is how often, at most, the end of a program that ended on
// its own looks for the orphans it left: a look reads /proc, and a batch
// of quick programs would pay for it at every call.
const sweepEvery = time.Second

// newProcesses makes the processes of a Set.
func newProcesses(grace time.Duration, guard *guardian, reap bool) *processes {
	ps := &processes{grace: grace, guard: guard, reap: reap}
	if reap {
		var rnd [4]byte
		_, _ = rand.Read(rnd[:])
		ps.mark = fmt.Sprintf("%d-%x", os.Getpid(), rnd)
		guard.mark = ps.mark
	}
	return ps
}

// start starts cmd in a process group of its own. A cmd made with
// exec.CommandContext is stopped on its context's end as a group:
// SIGTERM, then SIGKILL after the grace. The group is forgotten by finish,
// which also kills what is left of it: a program's children never outlive
// the call.
func (ps *processes) start(cmd *exec.Cmd, cancellable bool) error {
	setGroup(cmd)
	if cancellable {
		cmd.Cancel = func() error {
			pid := cmd.Process.Pid
			terminateGroup(pid)
			time.AfterFunc(ps.grace, func() { killGroup(pid) })
			return nil
		}
		// After the grace the pipes are closed whether or not the group
		// let go of them: a call ends, whatever the program left behind.
		cmd.WaitDelay = ps.grace + 100*time.Millisecond
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return errors.New("kesoku is stopping: no program starts")
	}
	var mark string
	if ps.reap {
		if !ps.subreaped {
			ps.subreaped, ps.subreaper = true, becomeSubreaper()
		}
		ps.seq++
		mark = ps.mark + "." + strconv.Itoa(ps.seq)
		cmd.Env = withMark(cmd.Env, mark)
		// The mark twice: a child may clear its environment, and keep
		// its descriptors (setsid env -i ...).
		if f := markFile(mark); f != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
			defer f.Close()
		}
	}
	ps.guard.ready()
	if err := cmd.Start(); err != nil {
		return err
	}
	if ps.groups == nil {
		ps.groups = map[int]string{}
	}
	ps.groups[cmd.Process.Pid] = mark
	ps.guard.started(cmd.Process.Pid)
	return nil
}

// withMark is env (kesoku's own when nil) with markVar set to mark, in
// place of one inherited (a kesoku that is itself the program of
// another).
func withMark(env []string, mark string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, markVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, markVar+"="+mark)
}

// sweep stops the orphans of the programs that have ended: at once when
// stopped (kesoku stopped a program), else at most every sweepEvery.
func (ps *processes) sweep(stopped bool) {
	if !ps.reap {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.subreaper || ps.closed || !stopped && time.Since(ps.lastSweep) < sweepEvery {
		return
	}
	ps.lastSweep = time.Now()
	live := make(map[string]bool, len(ps.groups))
	for _, m := range ps.groups {
		live[m] = true
	}
	ps.stopOrphans(func(mark string) bool { return strings.HasPrefix(mark, ps.mark+".") && !live[mark] })
}

// stopOrphans kills the children of kesoku that it did not start (they
// were reparented to it) whose mark says so, and collects the exits of
// those that have ended; the children of a killed one, reparented in
// turn, are looked for again. ps.mu is held: no program starts meanwhile,
// so every child os/exec waits for is in groups.
func (ps *processes) stopOrphans(stop func(mark string) bool) {
	guardian := ps.guard.pid()
	// Each round kills the orphans and all below them; what was started
	// meanwhile is reparented to kesoku and found by the next. The bound
	// ends a fight with a program that forks as fast as it is killed.
	for round := 0; round < maxSweepRounds; round++ {
		killed := false
		// below are the processes killed under the orphans: each becomes
		// a zombie of kesoku's once its parent is gone too, and is
		// collected here, not left for a sweep that may never come (the
		// last, at Close).
		var below []int
		for _, p := range children() {
			if _, ours := ps.groups[p.pid]; ours || p.pid == guardian {
				continue
			}
			if p.zombie {
				reap(p.pid)
				continue
			}
			if stop(processMark(p.pid)) {
				// Those below first: killed after their parent, they
				// would be reparented one generation at a time.
				for _, d := range descendants(p.pid) {
					killOrphan(d)
					below = append(below, d.pid)
				}
				killOrphan(p)
				ps.notReaped = append(ps.notReaped, p.pid)
				killed = true
			}
		}
		// A process killed dies at once, unless the kernel holds it (a
		// read of a hung disk): up to a tenth of a second is waited for
		// it, and a later sweep collects what is left.
		deadline := time.Now().Add(100 * time.Millisecond)
		for len(ps.notReaped)+len(below) > 0 && time.Now().Before(deadline) {
			ps.notReaped = slices.DeleteFunc(ps.notReaped, reap)
			below = slices.DeleteFunc(below, collected)
			if len(ps.notReaped)+len(below) > 0 {
				time.Sleep(time.Millisecond)
			}
		}
		if !killed {
			return
		}
	}
}

// finish kills what is left of the group of cmd, which has been waited
// for, and forgets it.
func (ps *processes) finish(cmd *exec.Cmd) {
	pid := cmd.Process.Pid
	killGroup(pid)
	ps.mu.Lock()
	delete(ps.groups, pid)
	ps.mu.Unlock()
	ps.guard.finished(pid)
}

// close kills every group still alive, and every orphan of kesoku's
// programs; no program starts after it.
func (ps *processes) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	for pid := range ps.groups {
		killGroup(pid)
	}
	if ps.reap && ps.subreaper {
		// Every child kesoku did not start is an orphan of its programs,
		// marked or not (a program may clear its environment).
		ps.stopOrphans(func(string) bool { return true })
	}
	ps.groups = nil
	ps.guard.close()
}

// Launch runs cmd, made with exec.CommandContext, as the programs of the
// tools run: in a process group of its own, the group stopped when cmd's
// context ends (SIGTERM, then SIGKILL after the grace), what is left of it
// killed once the program has ended, the orphans it left stopped; none of
// it outlives kesoku. It returns what cmd.Wait returns. Hooks run by it.
func (s *Set) Launch(cmd *exec.Cmd) error {
	if err := s.procs.start(cmd, true); err != nil {
		return err
	}
	err := cmd.Wait()
	s.procs.finish(cmd)
	s.procs.sweep(err != nil)
	return err
}

// commandRunner runs the calls of command tools.
type commandRunner struct {
	procs *processes
	// awd is where the programs run.
	awd string
	// limit is --max-output: a program's standard output is held up to
	// it, and past it written to a file under outputDir as it comes, its
	// head and tail kept. 0: held whole up to noLimitCapture.
	limit     int64
	outputDir string
	// capture bounds standard output when limit is 0 (noLimitCapture).
	capture int64
	// secrets are kesoku's: no program gets one in its environment.
	secrets *secret.Redactor
}

// run runs one call of t: the program in the AWD, without a shell, the
// arguments on standard input as JSON, each scalar one in the environment
// as KESOKU_ARG_<NAME>, and placeholders filled.
func (r *commandRunner) run(ctx context.Context, t *commandTool, args map[string]any) (any, error) {
	args = t.schema.withDefaults(args)
	if err := t.nulInPlaceholder(args); err != nil {
		return nil, err
	}
	argv := make([]string, len(t.argv))
	for i, segs := range t.argv {
		argv[i] = fill(segs, args)
	}
	prog := programPath(t.dir, argv[0])
	stdin, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode the arguments: %w", err)
	}
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Dir = r.awd
	own, err := t.ownEnv()
	if err != nil {
		return nil, err
	}
	cmd.Env = argEnv(secret.Environ(os.Environ(), own, r.secrets), args)
	cmd.Stdin = bytes.NewReader(stdin)
	var out outputWriter
	if r.limit > 0 {
		out = &outputSink{limit: r.limit, dir: r.outputDir, secrets: r.secrets}
	} else {
		out = &capped{limit: r.capture, cmd: cmd}
	}
	defer out.close()
	tail := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = out, tail
	if err := r.procs.start(cmd, true); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	err = cmd.Wait()
	r.procs.finish(cmd)
	r.procs.sweep(ctx.Err() != nil)
	if ctx.Err() != nil {
		// Timed out or interrupted: the runner says which; the message
		// says what became of the program.
		return nil, &endedError{cause: ctx.Err(), msg: fmt.Sprintf("%s stopped (%v)%s", argv[0], exitText(cmd, err), tail.quote())}
	}
	if c, ok := out.(*capped); ok && c.over {
		return nil, fmt.Errorf("%s printed more than %s on standard output: stopped", argv[0], sizeText(c.limit))
	}
	// ErrWaitDelay: the program succeeded, and something it left behind
	// held its output open; finish has killed it.
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return nil, fmt.Errorf("%s %s%s", argv[0], exitText(cmd, err), tail.quote())
	}
	return out.result(), nil
}

// nulInPlaceholder refuses a string argument with a NUL byte that goes
// into the command line: no argument of a program can hold one (the
// kernel takes the NUL for the argument's end), and a program given
// another value than the one the call sent would answer another question.
// On standard input and in JSON (an object or a list in {{name}}) a NUL
// is written as \u0000 and reaches the program whole.
func (t *commandTool) nulInPlaceholder(args map[string]any) error {
	for _, segs := range t.argv {
		for _, s := range segs {
			if v, ok := args[s.text].(string); s.param && ok && strings.IndexByte(v, 0) >= 0 {
				return &toolspec.ArgsError{Tool: t.name, Problems: []*toolspec.ArgError{{
					Path:     s.text,
					Problem:  "holds a NUL byte, which no command line can hold",
					Expected: fmt.Sprintf("text without NUL: the tool passes it as an argument of its program ({{%s}})", s.text),
				}}}
			}
		}
	}
	return nil
}

// endedError is a call ended by its context: its message says what became
// of the call, in words (a record says "interrupted while running: sh
// stopped (...)", not "context canceled: ..."); errors.Is still finds the
// context's error.
type endedError struct {
	cause error
	msg   string
}

func (e *endedError) Error() string { return e.msg }
func (e *endedError) Unwrap() error { return e.cause }

// fill writes an element of a command with its placeholders replaced by
// the arguments' values: a string as it is, anything else as JSON, an
// argument not given (and without a default) as nothing.
func fill(segs []segment, args map[string]any) string {
	if len(segs) == 1 && !segs[0].param {
		return segs[0].text
	}
	var b strings.Builder
	for _, s := range segs {
		if !s.param {
			b.WriteString(s.text)
			continue
		}
		b.WriteString(scalarText(args[s.text]))
	}
	return b.String()
}

// scalarText is how a value is written into an argument or a variable.
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// maxEnvValue bounds a KESOKU_ARG_ variable: Linux refuses to start a
// program with one string of the environment over 128 KiB, and the whole
// of it over a few MiB. A longer value is on standard input only.
const maxEnvValue = 64 << 10

// ownEnv is what the tool's env: sets, ${VAR} expanded.
func (t *commandTool) ownEnv() ([]string, error) {
	own := make([]string, 0, len(t.env))
	for _, e := range t.env {
		v, missing := expandVars(t.envValues[e.key])
		if missing != "" {
			return nil, fmt.Errorf("%s: tools.%s.env.%s: ${%s} is not set in the environment", yamlpos.Of(t.pos.File, e.value), t.name, e.key, missing)
		}
		own = append(own, e.key+"="+v)
	}
	return own, nil
}

// argEnv is the environment of a call: the program's own, without any
// KESOKU_ARG_ variable it inherited, and one KESOKU_ARG_<NAME> for each
// scalar argument of at most maxEnvValue bytes, its name upper-cased and
// every character a variable name cannot hold written as _.
func argEnv(environ []string, args map[string]any) []string {
	env := make([]string, 0, len(environ)+len(args))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "KESOKU_ARG_") {
			env = append(env, kv)
		}
	}
	for name, v := range args {
		switch v.(type) {
		case map[string]any, []any, nil:
			continue // not a scalar: on standard input only
		}
		text := scalarText(v)
		if len(text) > maxEnvValue || strings.IndexByte(text, 0) >= 0 {
			// No environment holds a NUL byte: such a value is on
			// standard input only, as a long one is.
			continue
		}
		env = append(env, "KESOKU_ARG_"+envName(name)+"="+text)
	}
	return env
}

func envName(name string) string {
	b := []byte(strings.ToUpper(name))
	for i, c := range b {
		if !(c == '_' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// result is the content of a call from the program's standard output,
// without its trailing newlines (as a shell's $(...)): JSON when it
// parses, compacted onto one line as records are; otherwise the text.
func result(out []byte) any {
	out = bytes.TrimRight(out, "\r\n")
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) > 0 && json.Valid(trimmed) {
		var b bytes.Buffer
		if json.Compact(&b, trimmed) == nil {
			return json.RawMessage(b.Bytes())
		}
	}
	if !utf8.Valid(out) {
		return strings.ToValidUTF8(string(out), "\uFFFD")
	}
	return string(out)
}

// exitText says how the program ended: "exited with status 3", "was
// killed by signal 9".
func exitText(cmd *exec.Cmd, err error) string {
	if st := cmd.ProcessState; st != nil {
		if sig := signalOf(st); sig != "" {
			return "was killed by " + sig
		}
		return fmt.Sprintf("exited with status %d", st.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "ended"
}

// outputWriter takes a program's standard output; result is what the
// call returns once the program has ended, close frees what it holds.
type outputWriter interface {
	io.Writer
	result() any
	close()
}

// capped is standard output held whole up to a limit; past it, the
// program's group is killed.
type capped struct {
	buf   bytes.Buffer
	limit int64
	over  bool
	// cmd is the program, started before anything is written.
	cmd *exec.Cmd
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if int64(c.buf.Len()+len(p)) > c.limit {
		c.over = true
		killGroup(c.cmd.Process.Pid)
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) result() any { return result(c.buf.Bytes()) }
func (c *capped) close()      {}

// outputSink is standard output held whole up to limit (--max-output),
// so that JSON can be parsed and a short text returned as it is. Past the
// limit it is no longer held: what came and what comes is written to a
// file under dir as it comes, and only the head and the tail are kept,
// what a record holds of it. A program that prints gigabytes costs a
// file, never the memory.
type outputSink struct {
	limit int64
	dir   string
	// secrets are hidden in what is saved, and so in the head and the
	// tail: a secret the record's redaction would find cut in two
	// there is hidden whole first.
	secrets *secret.Redactor
	// redact hands what comes past the limit on to take, secrets hidden
	// (the end of a write that may begin one held back until the next
	// shows); flush hands on what it holds. Nil while there is no secret
	// to hide.
	redact func(string)
	flush  func()

	buf []byte // the output, while it is within the limit
	n   int64
	// Once past the limit:
	over       bool
	file       *os.File // nil once writing it failed
	path       string
	saveErr    error
	head, tail []byte // tail is a ring of cap(tail) bytes, next at at
	at         int
	wrapped    bool
}

// keep is how much of each end is kept: half the limit each, as a record
// holds them, and a few bytes to cut them on a character's boundary.
func (o *outputSink) keep() int { return int(o.limit/2) + utf8.UTFMax }

func (o *outputSink) Write(p []byte) (int, error) {
	o.n += int64(len(p))
	if !o.over {
		if int64(len(o.buf)+len(p)) <= o.limit {
			o.buf = append(o.buf, p...)
			return len(p), nil
		}
		o.over = true
		o.head = make([]byte, 0, o.keep())
		o.tail = make([]byte, o.keep())
		o.open()
		if len(o.secrets.Secrets()) > 0 {
			o.redact, o.flush = o.secrets.Stream(func(s string) { o.take([]byte(s)) })
		}
		held := o.buf
		o.buf = nil
		o.pass(held)
	}
	o.pass(p)
	return len(p), nil
}

// pass hands p, past the limit, on to take, through redact.
func (o *outputSink) pass(p []byte) {
	if o.redact == nil {
		o.take(p)
		return
	}
	o.redact(string(p))
}

// open creates the file of the whole output.
func (o *outputSink) open() {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		o.saveErr = fmt.Errorf("save output: %w", err)
		return
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// Named as the runner names the outputs it saves: time first, so that
	// they list in the order they came.
	o.path = filepath.Join(o.dir, fmt.Sprintf("%016x-%x.txt", time.Now().UnixNano(), rnd))
	f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		o.saveErr = fmt.Errorf("save output: %w", err)
		o.path = ""
		return
	}
	o.file = f
}

// take writes p to the file and keeps what belongs to the head and the
// tail.
func (o *outputSink) take(p []byte) {
	if o.file != nil {
		if _, err := o.file.Write(p); err != nil {
			o.saveErr = fmt.Errorf("save output: %w", err)
			o.file.Close()
			os.Remove(o.path)
			o.file, o.path = nil, ""
		}
	}
	if room := cap(o.head) - len(o.head); room > 0 {
		o.head = append(o.head, cut(p, room)...)
	}
	if len(p) >= len(o.tail) {
		copy(o.tail, p[len(p)-len(o.tail):])
		o.at, o.wrapped = 0, true
		return
	}
	n := copy(o.tail[o.at:], p)
	if n < len(p) {
		copy(o.tail, p[n:])
		o.wrapped = true
	}
	o.at = (o.at + len(p)) % len(o.tail)
}

func (o *outputSink) result() any {
	if !o.over {
		return result(o.buf)
	}
	if o.flush != nil {
		o.flush()
	}
	tail := o.tail[:o.at]
	if o.wrapped {
		tail = append(append([]byte(nil), o.tail[o.at:]...), o.tail[:o.at]...)
	}
	// A character cut at either end is left out, not made a U+FFFD.
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	head := o.head
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	if o.file != nil {
		if err := o.file.Close(); err != nil {
			o.saveErr, o.path = fmt.Errorf("save output: %w", err), ""
		}
		o.file = nil
	}
	return &registry.CutOutput{
		Head:    strings.ToValidUTF8(string(head), "\uFFFD"),
		Tail:    strings.ToValidUTF8(string(bytes.TrimRight(tail, "\r\n")), "\uFFFD"),
		Bytes:   o.n,
		SavedTo: o.path,
		SaveErr: o.saveErr,
	}
}

// close closes the file, should the call end without a result (the
// program failed): what it printed stays saved.
func (o *outputSink) close() {
	if o.flush != nil {
		o.flush()
	}
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

// String is the tail, cut to max bytes on a character boundary.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, cut := t.buf, t.cut
	if len(b) > t.max {
		b, cut = b[len(b)-t.max:], true
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	// Escaped: the tail reaches the terminal in messages, and a program
	// may print anything there.
	s := termtext.Lines(strings.TrimSpace(string(b)))
	if cut && s != "" {
		s = "…" + s
	}
	return s
}

// quote is the tail for a message: ": standard error: ...", or nothing.
func (t *tailBuffer) quote() string {
	if s := t.String(); s != "" {
		return "; standard error: " + s
	}
	return ""
}

// sizeText writes a size as --max-output takes it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
