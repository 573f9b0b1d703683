package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// CollectOptions are what kesoku batch collect was asked to do.
type CollectOptions struct {
	// Registry holds the tools, for the requests' ids as run numbers them.
	Registry *registry.Registry
	// State is the batch, read from StatePath (where collect notes that
	// the batch's files were deleted).
	State     *State
	StatePath string
	Batcher   llm.Batcher
	// Finished are the requests the output holds a finished record of
	// already (an earlier collect): they get none.
	Finished *records.Finished
	// Emit writes a record.
	Emit func(*message.Record) error
	// Wait waits for parts still in progress, looking again after a
	// wait that starts short and grows to Poll.
	Wait bool
	Poll time.Duration
	// Notify, when set, is told in one line of each part waited for.
	Notify func(string)
}

// DefaultPoll is the longest wait between two looks at a batch in
// progress: Claude says most batches end within the hour.
const DefaultPoll = time.Minute

// firstPoll is the first wait.
const firstPoll = 5 * time.Second

// PendingError says a part of the batch has not ended yet: the records
// before it are written, the rest wait for it.
type PendingError struct {
	// Part is its number (1-based), of Parts.
	Part, Parts int
	Batch       *llm.Batch
}

func (e *PendingError) Error() string {
	return fmt.Sprintf("part %d of %d (%s) has not ended yet: %s", e.Part, e.Parts, e.Batch.ID, describe(e.Batch))
}

// Collect writes one record per request of the batch, in request order,
// as kesoku run would have written it, waiting for parts in progress if
// asked. Requests the output has a finished record of are skipped, so
// that an interrupted collect is finished by the same command. Once
// every request has its record, the files kesoku uploaded for the batch
// are deleted (the report's Deleted counts them).
func Collect(ctx context.Context, o CollectOptions) (CollectReport, error) {
	st := o.State
	var sum CollectReport
	if !st.Submitted {
		return sum, usage("the batch was not sent whole (submit was interrupted, or failed): run the same kesoku batch submit again first")
	}
	sha, err := hashFile(st.File)
	if err != nil {
		return sum, &UsageError{Err: fmt.Errorf("read the batch's requests: %w", err)}
	}
	if sha != st.SHA256 {
		return sum, &UsageError{Err: fmt.Errorf("%s: %w: collect needs the requests as they were sent", st.File, ErrChanged)}
	}
	f, err := openRequests(ctx, st)
	if err != nil {
		return sum, &UsageError{Err: err}
	}
	defer f.Close()
	n, err := f.Count(ctx)
	if err != nil {
		return sum, &UsageError{Err: fmt.Errorf("read the batch's requests: %w", err)}
	}
	if err := st.fits(o.StatePath, st.File, n); err != nil {
		return sum, err
	}
	// The checker numbers the requests as run does: the same ids.
	numbering := runner.New(o.Registry, runner.Options{}).Checker()
	pk := records.Packer{SessionID: st.SessionID}
	c := &collector{o: &o, st: st}
	defer c.drop()
	var pos int64
	for req := range f.Requests() {
		pos++
		numbering.Check(req)
		if st.SessionFlag {
			req.SessionID = ""
		}
		argsHash := records.ArgsHash(req.Args)
		switch resumed := o.Finished.Check(req.ID, req.Name, argsHash, pos); resumed {
		case records.Succeeded, records.Failed:
			sum.Skip(resumed == records.Failed)
			continue
		case records.Changed, records.Again:
			return sum, usage("%s: the output's record of id %q answers another request: it holds another run's records", req.Pos, req.ID)
		}
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		answer, callErr, err := c.outcome(ctx, req, pos)
		if err != nil {
			return sum, err
		}
		var v any
		if callErr == nil {
			v = answer.Text
		}
		rec := pk.Pack(records.Call{ID: req.ID, Name: req.Name, SessionID: req.SessionID, CallID: req.CallID}, records.Outcome{Value: v, Err: callErr}, 0)
		rec.ID = message.NewID()
		rec.ArgsHash = argsHash
		rec.Position = pos
		// What the request cost, at the batch price: as analyze --json
		// reports it.
		rec.Usage = answer.Usage
		if err := o.Emit(rec); err != nil {
			return sum, err
		}
		sum.Add(rec)
	}
	if err := f.Err(); err != nil {
		return sum, err
	}
	if pos != st.Requests {
		return sum, fmt.Errorf("%s holds %d requests; the batch sent %d", st.File, pos, st.Requests)
	}
	if err := ctx.Err(); err != nil {
		// Every record is written, but the files wait for the same
		// command again: an interrupt starts nothing new.
		return sum, err
	}
	sum.Deleted, err = c.clean(ctx)
	return sum, err
}

// collector holds the results of one part at a time, in a spool file
// indexed by position: they come in no particular order.
type collector struct {
	o  *CollectOptions
	st *State

	part    int // index of the part loaded, -1 for none
	batch   *llm.Batch
	spool   *os.File
	offsets []int64 // by position - First: where its result starts, -1 for none
	lengths []int32
}

// spooled is one result as the spool keeps it.
type spooled struct {
	Resp *llm.Response `json:"resp,omitempty"`
	Err  string        `json:"err,omitempty"`
}

func (c *collector) drop() {
	if c.spool != nil {
		c.spool.Close()
		os.Remove(c.spool.Name())
		c.spool = nil
	}
	c.batch, c.offsets, c.lengths = nil, nil, nil
}

// outcome is what the batch answered the request at pos: the answer, or
// the error of the call, as the analyze_media tool would have returned
// it. err is collect's own failure.
func (c *collector) outcome(ctx context.Context, req *request.Request, pos int64) (answer media.Answer, callErr, err error) {
	i, ok := c.st.part(pos)
	if !ok {
		return media.Answer{}, nil, fmt.Errorf("the state file has no part for request %d", pos)
	}
	if c.batch == nil || c.part != i {
		if err := c.load(ctx, i); err != nil {
			return media.Answer{}, nil, err
		}
	}
	path, _ := req.Args["path"].(string)
	k := pos - c.st.Parts[i].First
	if c.offsets[k] < 0 {
		why := error(&llm.BatchError{Provider: c.st.Provider, Batch: c.batch.ID, Outcome: "has no result", Reason: "the provider's results do not hold it"})
		if c.batch.Failure != nil {
			why = c.batch.Failure
		}
		answer, callErr = media.ReadAnswer(c.st.Model, path, nil, why)
		return answer, callErr, nil
	}
	buf := make([]byte, c.lengths[k])
	if _, err := c.spool.ReadAt(buf, c.offsets[k]); err != nil {
		return media.Answer{}, nil, fmt.Errorf("read the spooled results: %w", err)
	}
	var s spooled
	if err := json.Unmarshal(buf, &s); err != nil {
		return media.Answer{}, nil, fmt.Errorf("read the spooled results: %w", err)
	}
	var rerr error
	switch {
	case s.Err != "":
		rerr = errors.New(s.Err)
	case s.Resp == nil:
		rerr = errors.New("the provider's result is empty")
	}
	answer, callErr = media.ReadAnswer(c.st.Model, path, s.Resp, rerr)
	return answer, callErr, nil
}

// load waits for part i to end, if asked, and spools its results.
func (c *collector) load(ctx context.Context, i int) error {
	c.drop()
	p := c.st.Parts[i]
	b, err := c.wait(ctx, i)
	if err != nil {
		return err
	}
	c.part, c.batch = i, b
	c.offsets = make([]int64, p.Count())
	c.lengths = make([]int32, p.Count())
	for k := range c.offsets {
		c.offsets[k] = -1
	}
	if c.spool, err = os.CreateTemp("", "kesoku-results-*.jsonl"); err != nil {
		return fmt.Errorf("spool the results: %w", err)
	}
	var end int64
	err = c.o.Batcher.BatchResults(ctx, b, func(key string, resp *llm.Response, rerr error) error {
		pos := position(key)
		if pos < p.First || pos > p.Last {
			return &llm.MalformedError{Provider: c.st.Provider, Problem: fmt.Sprintf("batch %s gave a result for %q, no request of it", b.ID, key)}
		}
		k := pos - p.First
		if c.offsets[k] >= 0 {
			return &llm.MalformedError{Provider: c.st.Provider, Problem: fmt.Sprintf("batch %s gave two results for %q", b.ID, key)}
		}
		s := spooled{Resp: resp}
		if rerr != nil {
			s.Resp, s.Err = nil, rerr.Error()
		}
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if _, err := c.spool.WriteAt(data, end); err != nil {
			return fmt.Errorf("spool the results: %w", err)
		}
		c.offsets[k], c.lengths[k] = end, int32(len(data))
		end += int64(len(data))
		return nil
	})
	if err != nil {
		c.drop()
		return fmt.Errorf("results of part %d (%s): %w", i+1, b.ID, err)
	}
	return nil
}

// wait returns part i once it has ended: at once, or, with Wait, after
// looking again until it has.
func (c *collector) wait(ctx context.Context, i int) (*llm.Batch, error) {
	id := c.st.Parts[i].Batch
	delay := min(firstPoll, c.o.poll())
	last := ""
	for {
		b, err := c.o.Batcher.Batch(ctx, id)
		if err != nil {
			return nil, err
		}
		if b.Ended {
			return b, nil
		}
		if !c.o.Wait {
			return nil, &PendingError{Part: i + 1, Parts: len(c.st.Parts), Batch: b}
		}
		if now := describe(b); now != last && c.o.Notify != nil {
			c.o.Notify(fmt.Sprintf("waiting for part %d of %d (%s): %s", i+1, len(c.st.Parts), id, now))
			last = now
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, c.o.poll())
	}
}

func (o *CollectOptions) poll() time.Duration {
	if o.Poll > 0 {
		return o.Poll
	}
	return DefaultPoll
}

// clean deletes the files kesoku uploaded for the batch, every record
// being written, notes it in the state file, and returns how many there
// were.
func (c *collector) clean(ctx context.Context) (int, error) {
	st := c.st
	if st.Cleaned {
		return 0, nil
	}
	n := 0
	for _, p := range st.Parts {
		for _, name := range p.Files {
			if err := c.o.Batcher.DeleteFile(ctx, name); err != nil {
				return n, err
			}
			n++
		}
	}
	st.Cleaned = true
	return n, st.Save(c.o.StatePath)
}

// describe says in a few words where a batch stands.
func describe(b *llm.Batch) string {
	s := b.State
	if n := b.Counts; n != nil {
		done := n.Succeeded + n.Errored + n.Canceled + n.Expired
		s += fmt.Sprintf(", %d of %d done", done, done+n.Processing)
	}
	return s
}
