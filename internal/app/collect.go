package app

import (
	"context"
	"fmt"
	"io"

	"github.com/kesoku/kesoku/internal/batch"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// CollectOptions are what kesoku batch collect is asked to do: collect's
// own (batch.CollectOptions, but Finished and Emit, which the sink
// gives), and where the records go: Output, appended to and resumed, or
// Stdout for "" and "-". The caller has checked that Output is not the
// batch's request file.
type CollectOptions struct {
	batch.CollectOptions
	Output string
	Stdout io.Writer
}

// Collect writes the records of a batch's answers through a sink: to the
// end of the -o file, read under its lock first so that the requests it
// finished are skipped (a collect resumes what it wrote, nobody else's
// file), or to standard output. An -o file that cannot be opened, or that
// holds another run's records, is a *UsageError, and nothing is collected;
// any other error comes with the report of what was written.
func Collect(ctx context.Context, o CollectOptions) (batch.CollectReport, error) {
	st := o.State
	var out RecordsOut
	if o.Output != "" && o.Output != "-" {
		resumed, err := records.Resume(o.Output, func(fin *records.Finished) error {
			if s := fin.Session; s != "" && s != st.SessionID {
				return fmt.Errorf("%s holds the records of another run (session %s, not the batch's %s): give -o a new file", o.Output, s, st.SessionID)
			}
			return nil
		})
		if err != nil {
			return batch.CollectReport{}, &UsageError{Err: err}
		}
		out, o.Finished = resumed, resumed.Finished
	} else {
		out = records.NewWriter(o.Stdout)
	}
	sink, err := OpenSink(SinkOptions{Records: out})
	if err != nil {
		out.Close()
		return batch.CollectReport{}, err
	}
	o.Emit = func(rec *message.Record) error { return sink.Write(rec) }
	rep, err := batch.Collect(ctx, o.CollectOptions)
	rep.Output = o.Output
	return rep, sink.Close(err)
}
