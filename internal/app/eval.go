package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// EvalCase is a case with the tools it offers, chosen by the caller
// (as --tools chooses them) before anything runs.
type EvalCase struct {
	*eval.Case
	Specs    []*registry.Spec
	Registry *registry.Registry
}

// EvalOptions are what an eval over the environment is asked to do.
type EvalOptions struct {
	// Cases gives the cases in order, each when the eval is ready to run
	// it: a case is taken from it once a run of the one before has
	// started, so that what it holds is the few cases under way.
	Cases iter.Seq2[EvalCase, error]
	// Repeat is how many times each case runs unless it says; Jobs how
	// many runs at once; System and MaxTurns a case's unless it says.
	Repeat, Jobs int
	System       string
	MaxTurns     int
	// Tally counts what the whole eval spends and holds it to the budget.
	Tally *llm.Tally
	// CassetteDir, when set, holds a cassette for each case and repeat,
	// recorded or replayed as CassetteMode says (Auto: each replayed when
	// it exists).
	CassetteDir  string
	CassetteMode cassette.Mode
	// Shard and Shards, when Shards > 0, make the eval one shard's: only
	// the runs at positions p with (p-1) mod Shards == Shard-1 run, ids and
	// positions those of the whole eval.
	Shard, Shards int64
	// Earlier, when set, says whether the run at position, of the case
	// id, has a final verdict from an earlier eval (--resume), and whether
	// it passed: that run does not run again, and counts as it went.
	Earlier func(position int64, caseID string) (passed, ok bool)
	// Write receives the records of each run of a case, its transcript
	// then its verdict, one run after another in case order whatever the
	// scheduling; a run an interrupt cut is not written.
	Write func(recs []*message.Record) error
}

// EvalReport is what an eval did.
type EvalReport struct {
	// Summary adds up the verdicts written, and those of an earlier eval
	// that --resume skipped.
	Summary eval.Summary
	// Interrupted says an interrupt stopped the eval: the runs not written
	// are left for --resume. Budget says the budget ran out.
	Interrupted, Budget bool
	// Total is how many runs the whole eval has, every shard's; Skipped
	// how many runs Earlier had finished.
	Total, Skipped int64
}

// unit is one run of one case: its place in the eval.
type unit struct {
	c        EvalCase
	repeat   int
	position int64
}

// result is what a unit wrote, or why it wrote nothing.
type result struct {
	recs []*message.Record
	run  eval.Run
	// cut says an interrupt cut the run: nothing of it is written.
	cut bool
	// earlier says the run finished in an earlier eval: nothing is
	// written, and it took no slot.
	earlier bool
}

// Eval runs every case of o, each as kesoku session runs a prompt, up to
// o.Jobs at once, started in case order, and hands each run's records to
// o.Write in case order. Once the budget is spent no new model request
// starts; every run not finished then gets a verdict of kind budget.
func (e *Env) Eval(ctx context.Context, o EvalOptions) (EvalReport, error) {
	ctx = e.traced(ctx)
	model, err := e.Model.Build(ctx)
	if err != nil {
		return EvalReport{}, err
	}
	e.secrets.Add(e.Model.Redactor().Secrets()...)
	if o.CassetteDir != "" {
		if o.CassetteMode == cassette.Record {
			if err := os.MkdirAll(o.CassetteDir, 0o755); err != nil {
				return EvalReport{}, err
			}
		}
		if _, err := os.Stat(o.CassetteDir); err != nil {
			if o.CassetteMode == cassette.Replay {
				return EvalReport{}, fmt.Errorf("cassettes %s: %w", o.CassetteDir, err)
			}
			if err := os.MkdirAll(o.CassetteDir, 0o755); err != nil {
				return EvalReport{}, err
			}
		}
		e.Protect(o.CassetteDir, "it holds the cassettes of this eval's model traffic")
	}
	ir := e.WatchSignals(nil)
	ctx, end := ir.Turn(ctx)
	defer end()
	// A records file that cannot be written stops the eval: no case
	// starts, and no model request is paid for, that could not be kept.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if o.Tally == nil {
		o.Tally = &llm.Tally{}
	}
	jobs := max(o.Jobs, 1)
	// A channel of each started unit's result, in order, for the writer;
	// a slot is taken before a unit starts and given back once its result
	// is written, so that at most jobs units run or wait to be written:
	// memory holds jobs transcripts however many cases there are.
	pending := make(chan chan result, jobs)
	slots := make(chan struct{}, jobs)
	var report EvalReport
	var runs eval.Summarizer
	var writeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range pending {
			r := <-ch
			if r.earlier {
				runs.Add(r.run)
				continue
			}
			switch {
			case r.cut:
				report.Interrupted = true
			case writeErr != nil:
				// Nothing more is written after a write failed.
			default:
				if writeErr = o.Write(r.recs); writeErr != nil {
					stop()
					break
				}
				runs.Add(r.run)
				report.Budget = report.Budget || r.run.Budget
			}
			// Given back once written: the next run starts only then, so
			// that a write that failed starts none.
			<-slots
		}
	}()
	// What every run's runner shares, made once: each run sets its own
	// session, store and model (with the tally that holds it to the
	// budget).
	base := e.RunnerOptions()
	base.EndGrace = ir.EndGrace()
	// jobs workers run the units, each unit's slot taken before it is
	// handed over, so that one is free to take it: a worker's stack,
	// grown by the SDK's deep calls, serves every run it takes, where a
	// goroutine a run would grow a new one each time.
	type work struct {
		u  unit
		ch chan result
	}
	units := make(chan work)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range units {
				w.ch <- e.evalUnit(runCtx, model, o, w.u, base)
			}
		}()
	}
	position := int64(0)
	var readErr error
dispatch:
	for c, err := range o.Cases {
		if err != nil {
			readErr = err
			stop()
			break
		}
		repeat := c.Repeat
		if repeat == 0 {
			repeat = max(o.Repeat, 1)
		}
		for r := 1; r <= repeat; r++ {
			position++
			if runCtx.Err() != nil {
				break dispatch
			}
			if o.Shards > 0 && (position-1)%o.Shards != o.Shard-1 {
				continue
			}
			if o.Earlier != nil {
				if passed, ok := o.Earlier(position, c.ID); ok {
					report.Skipped++
					ch := make(chan result, 1)
					ch <- result{earlier: true, run: eval.Run{Case: c.ID, Repeat: r, Passed: passed}}
					pending <- ch
					continue
				}
			}
			u := unit{c: c, repeat: r, position: position}
			select {
			case slots <- struct{}{}:
			case <-runCtx.Done():
				break dispatch
			}
			ch := make(chan result, 1)
			pending <- ch
			units <- work{u, ch}
		}
	}
	close(units)
	wg.Wait()
	close(pending)
	<-done
	report.Total = position
	report.Summary = runs.Summary()
	if ctx.Err() != nil {
		report.Interrupted = true
	}
	return report, cmp.Or(writeErr, readErr)
}

// evalUnit runs one case once, into memory, and judges it.
func (e *Env) evalUnit(ctx context.Context, model llm.Provider, o EvalOptions, u unit, ropts runner.Options) (res result) {
	start := time.Now()
	if o.CassetteDir != "" {
		// Each run its own cassette: it replays its own traffic whatever
		// order the runs go in.
		path := cassette.PathIn(o.CassetteDir, u.c.ID, u.repeat)
		c, err := cassette.Open(path, o.CassetteMode)
		if err == nil {
			defer func() {
				c.Close()
				if !c.Replaying() && (res.cut || res.run.Budget) {
					// Half a run on record would replay as a run that
					// failed: a run cut short records again whole.
					os.Remove(path)
				}
			}()
			model, err = e.Model.WithCassette(c).Build(ctx)
		}
		if err != nil {
			return e.failedUnit(u, start, err)
		}
	}
	sessionID := message.NewID()
	// The case's span holds its session: its model requests and tool
	// calls, and its verdict.
	ctx, span := tracing.From(ctx).Agent(ctx, tracing.Agent{
		SessionID: sessionID, Provider: model.Name(), Model: model.ModelName(), Case: u.c.ID, Repeat: u.repeat,
	})
	defer span.End()
	store := &memStore{}
	tally := &llm.Tally{Parent: o.Tally, Price: o.Tally.Price}
	redact := e.secrets
	ropts.SessionID = sessionID
	ropts.Store = redact.Store(store)
	ropts.Model = media.WithOptions(model, e.MediaOptions(tally))
	system, maxTurns := o.System, o.MaxTurns
	if u.c.System != "" {
		system = u.c.System
	}
	if u.c.MaxTurns > 0 {
		maxTurns = u.c.MaxTurns
	}
	s := llm.NewSession(llm.SessionOptions{
		Provider:  model,
		Runner:    runner.New(u.c.Registry, ropts),
		Store:     store,
		SessionID: sessionID,
		System:    system,
		Tools:     u.c.Specs,
		MaxTurns:  maxTurns,
		Redactor:  redact,
		Tally:     tally,
	})
	answer, err := s.Send(ctx, u.c.Prompt)
	if errors.Is(err, llm.ErrInterrupted) || (err != nil && ctx.Err() != nil) {
		return result{cut: true}
	}
	usage, turns := tally.Total()
	outcome := eval.Outcome{
		Answer: answer, Answered: err == nil,
		Turns: turns, Tokens: usage.InputTokens + usage.OutputTokens,
	}
	recs := store.records()
	for _, rec := range recs {
		if rec.Type == message.TypeToolCall {
			outcome.Calls = append(outcome.Calls, eval.Call{Name: rec.Name, Args: rec.Content})
		}
	}
	checks := u.c.Expect.Check(outcome)
	var budget *llm.BudgetError
	if err != nil && !errors.As(err, &budget) {
		// The session itself failed: the model gave no answer.
		checks = append([]eval.Result{{Check: "session", Passed: false, Want: "an answer", Got: redact.String(err.Error())}}, checks...)
	}
	passed := err == nil
	for _, c := range checks {
		passed = passed && c.Passed
	}
	v := u.verdict(sessionID, start, passed, checks)
	v.Usage = &usage
	if cost, known := tally.Cost(); known {
		v.CostUSD = &cost
	}
	if budget != nil {
		// No case is half-recorded: a run the budget cut is its verdict
		// alone, and runs again with more budget.
		recs = nil
		spent := v
		v = u.verdict(sessionID, start, false, nil)
		v.Usage, v.CostUSD = spent.Usage, spent.CostUSD
		v.Error = &message.ErrorInfo{Kind: message.KindBudget, Message: budget.Error()}
	}
	if err != nil {
		span.Error(err)
	}
	span.Passed(passed)
	span.Stamp(v)
	return result{
		recs: append(recs, v),
		run:  eval.Run{Case: u.c.ID, Repeat: u.repeat, Passed: passed, Budget: budget != nil},
	}
}

// failedUnit is the verdict of a run that could not start: its cassette
// could not be read, or its client made.
func (e *Env) failedUnit(u unit, start time.Time, err error) result {
	v := u.verdict(message.NewID(), start, false, []eval.Result{{Check: "session", Want: "an answer", Got: e.secrets.String(err.Error())}})
	return result{recs: []*message.Record{v}, run: eval.Run{Case: u.c.ID, Repeat: u.repeat}}
}

// verdict is the verdict record of u.
func (u unit) verdict(sessionID string, start time.Time, passed bool, checks []eval.Result) *message.Record {
	ms := time.Since(start).Milliseconds()
	v := &message.Record{
		ID: message.NewID(), SessionID: sessionID, ParentID: u.c.ID,
		Role: message.RoleEval, Type: message.TypeVerdict, Status: message.StatusResponded,
		Position: u.position, Repeat: u.repeat, IsError: !passed,
		CreatedAt: time.Now().UTC(), DurationMS: &ms,
	}
	if checks == nil {
		checks = []eval.Result{}
	}
	v.Content, _ = json.Marshal(struct {
		Passed bool          `json:"passed"`
		Checks []eval.Result `json:"checks"`
	}{passed, checks})
	return v
}

// memStore keeps a run's records in memory until the run is judged.
type memStore struct {
	mu   sync.Mutex
	recs []*message.Record
}

func (m *memStore) Append(_ context.Context, recs ...*message.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, recs...)
	return nil
}

func (m *memStore) records() []*message.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recs
}
