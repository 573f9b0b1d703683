package app

import (
	"encoding/json"
	"io"

	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// MergeOptions are what kesoku merge is asked to do. The caller has
// checked them (the -o file is no part, the report's path none of the
// files).
type MergeOptions struct {
	// Parts are the records files of a run's (or an eval's) shards.
	Parts []string
	// Output is the merged file, "" or "-" for Stdout.
	Output string
	Stdout io.Writer
	// JUnit is the path of the JUnit report, "" for none.
	JUnit string
}

// MergeReport is what a merge did; for an eval's shards, what the whole
// eval's runs add up to as well (which cmd says on a line of its own).
type MergeReport struct {
	records.MergeReport
	// Eval is the merged eval's summary (pass@1, pass@K, pass^K), as
	// the eval unsharded says it; nil for a run's shards.
	Eval *eval.Summary
	// Threshold is the eval's --threshold, as its shards say it (0 for
	// none): the pass@1 that passes it.
	Threshold float64
	// Usage is what the merged eval's runs spent, from their verdicts
	// (each the usage of its run); nil for a run's shards.
	Usage *MergedUsage
}

// MergedUsage is what an eval's runs spent, added up from their verdicts:
// tokens, and dollars where every run that spent any has a price.
type MergedUsage struct {
	message.Usage
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// unpriced counts the runs that spent tokens and say no cost.
	unpriced int
}

// add counts the verdict rec.
func (u *MergedUsage) add(rec *message.Record) {
	if rec.Usage == nil {
		return
	}
	u.Usage.Add(*rec.Usage)
	switch {
	case rec.CostUSD != nil:
		c := *rec.CostUSD
		if u.CostUSD != nil {
			c += *u.CostUSD
		}
		u.CostUSD = &c
	case rec.Usage.InputTokens+rec.Usage.OutputTokens > 0:
		u.unpriced++
	}
}

// done is u once every verdict is counted: a cost only where every run
// that spent tokens had one.
func (u *MergedUsage) done() *MergedUsage {
	if u.unpriced > 0 {
		u.CostUSD = nil
	}
	return u
}

// MarshalJSON is the merge's report with the eval's summary under
// eval_summary.
func (r MergeReport) MarshalJSON() ([]byte, error) {
	b, err := r.MergeReport.MarshalJSON()
	if err != nil || r.Eval == nil {
		return b, err
	}
	// The eval's summary with what its runs spent, as eval --summary
	// json gives it (but the count of requests, which verdicts do not
	// keep).
	sum, err := json.Marshal(struct {
		*eval.Summary
		Usage *MergedUsage `json:"usage,omitempty"`
	}{r.Eval, r.Usage})
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], `,"eval_summary":`...)
	return append(append(b, sum...), '}'), nil
}

// Merge joins the parts into the file the whole run would have written
// (records.Merge), through a sink whose report is made from the merged
// records as they are written, not by joining the shards' reports: it
// then says what the merged file holds, whatever report a shard left. A
// part that cannot be read, or parts that are not one run's shards, are
// a *FilesError; nothing is written then.
func Merge(o MergeOptions) (MergeReport, error) {
	sink, err := OpenSink(SinkOptions{JUnit: o.JUnit, Suite: "kesoku merge"})
	if err != nil {
		return MergeReport{}, &UsageError{Err: err}
	}
	defer sink.Abandon()
	classname := o.Output
	if classname == "" || classname == "-" {
		classname = "kesoku merge"
	}
	var rep MergeReport
	var runs eval.Summarizer
	var spent MergedUsage
	merge := func(w io.Writer) error {
		m, err := records.OpenMerge(o.Parts)
		if err != nil {
			rep.MergeReport = m.Report()
			return err
		}
		var see func(*message.Record)
		if m.Eval() {
			if sink.Report() != nil {
				// The whole eval's report, as an unsharded eval writes it.
				sink.Report().Rename("kesoku eval")
			}
			// The runs come in the whole eval's order, each case's
			// together: they add up as the eval unsharded adds them.
			see = func(rec *message.Record) {
				if rec.Type == message.TypeVerdict {
					runs.Add(eval.Run{Case: rec.ParentID, Repeat: rec.Repeat, Passed: !rec.IsError,
						Budget: rec.Error != nil && rec.Error.Kind == message.KindBudget})
					spent.add(rec)
				}
			}
		}
		lines, wait := sink.Lines(w, classname, mergeCase(m, classname), see)
		rep.MergeReport, err = m.Write(lines)
		rerr := wait()
		if see != nil {
			sum := runs.Summary()
			rep.Eval, rep.Threshold, rep.Usage = &sum, m.End().Threshold, spent.done()
		}
		if rerr != nil && err == nil {
			return &UsageError{Err: rerr}
		}
		return err
	}
	if o.Output != "" && o.Output != "-" {
		// Written beside and renamed, under the file's lock: a merge that
		// fails leaves no half file under the name, and no run writes
		// records into the file the merge replaces (a run that holds it
		// refuses the merge).
		err = records.Replace(o.Output, merge)
	} else {
		err = merge(o.Stdout)
	}
	if _, ok := err.(*UsageError); ok {
		return rep, err
	}
	if err != nil {
		return rep, &FilesError{[]error{err}}
	}
	return rep, sink.Close(nil)
}

// mergeCase makes the testcases of a merge's report: a run's tool_result
// records, each under classname; an eval's verdicts, named as the whole
// eval names them (by the files of its cases and, when a case runs more
// than once, their repeats), from what the shards' ends say. Parts whose
// ends do not say it get classname, and repeats in every name.
func mergeCase(m *records.Merging, classname string) func(*message.Record) *junit.Case {
	if !m.Eval() {
		return func(rec *message.Record) *junit.Case {
			if rec.Type != message.TypeToolResult {
				return nil
			}
			return junit.RecordCase(rec, classname)
		}
	}
	end := m.End()
	repeats := end.Cases == 0 || end.Requests > end.Cases
	return func(rec *message.Record) *junit.Case {
		if rec.Type != message.TypeVerdict {
			return nil
		}
		return junit.VerdictCase(rec, cmpOr(end.FileAt(rec.Position), classname), repeats)
	}
}
