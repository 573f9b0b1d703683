package batch

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/termtext"
)

// PartStatus is where one part of a batch stands.
type PartStatus struct {
	Part Part
	// Number is its number, 1-based.
	Number int
	// Batch is what the provider says of it.
	Batch *llm.Batch
}

// Status asks the provider where each part of the batch stands.
func Status(ctx context.Context, st *State, b llm.Batcher) ([]PartStatus, error) {
	out := make([]PartStatus, 0, len(st.Parts))
	for i, p := range st.Parts {
		info, err := b.Batch(ctx, p.Batch)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i+1, err)
		}
		if info.Expires.IsZero() {
			info.Expires = p.Expires
		}
		out = append(out, PartStatus{Part: p, Number: i + 1, Batch: info})
	}
	return out, nil
}

// Ended reports whether every part has ended.
func Ended(parts []PartStatus) bool {
	for _, p := range parts {
		if !p.Batch.Ended {
			return false
		}
	}
	return true
}

// StatusSummary counts what the provider says of the batch's requests:
// answered (succeeded), errored, cancelled or expired (failed), still in
// progress, not counted (an ended part whose provider gives no counts:
// its results say), or never sent (a submit cut short).
func StatusSummary(st *State, parts []PartStatus) StatusReport {
	sum := StatusReport{Total: int(st.Requests), Parts: len(st.Parts)}
	sum.Unsent = int(st.Requests - st.sent())
	for _, ps := range parts {
		c := ps.Batch.Counts
		switch {
		case c != nil:
			sum.Succeeded += c.Succeeded
			sum.Failed += c.Errored + c.Canceled + c.Expired
			sum.Pending += c.Processing
		case ps.Batch.Ended:
			sum.Uncounted += int(ps.Part.Count())
		default:
			sum.Pending += int(ps.Part.Count())
		}
	}
	return sum
}

// Report writes where the batch stands, for people: a line for the
// batch, then one per part.
func Report(w io.Writer, st *State, parts []PartStatus, now time.Time) {
	// The provider's words (a batch's ID, its state, a failure's reason)
	// and the state file's go to a terminal: escaped.
	esc := termtext.Escape
	fmt.Fprintf(w, "batch %s: %d %s of %s to %s, in %d %s\n", esc(st.ID), st.Requests, english.Plural(int(st.Requests), "request", "requests"),
		esc(st.File), esc(st.Model), len(st.Parts), english.Plural(len(st.Parts), "part", "parts"))
	if !st.Submitted {
		fmt.Fprintf(w, "  not sent whole: submit stopped after request %d; run the same kesoku batch submit again\n", st.sent())
	}
	for _, ps := range parts {
		p := ps.Batch
		fmt.Fprintf(w, "  part %d, requests %d to %d, %s: %s", ps.Number, ps.Part.First, ps.Part.Last, esc(p.ID), esc(p.State))
		if c := p.Counts; c != nil {
			var n []string
			for _, k := range []struct {
				n    int
				what string
			}{{c.Processing, "processing"}, {c.Succeeded, "succeeded"}, {c.Errored, "errored"}, {c.Canceled, "canceled"}, {c.Expired, "expired"}} {
				if k.n > 0 {
					n = append(n, fmt.Sprintf("%d %s", k.n, k.what))
				}
			}
			if len(n) > 0 {
				fmt.Fprintf(w, " (%s)", strings.Join(n, ", "))
			}
		}
		switch {
		case p.Ended && !p.EndedAt.IsZero():
			fmt.Fprintf(w, "; ended %s", when(p.EndedAt, now))
		case !p.Ended && !p.Expires.IsZero():
			fmt.Fprintf(w, "; created %s, expires %s", when(p.Created, now), when(p.Expires, now))
		case !p.Ended && !p.Created.IsZero():
			fmt.Fprintf(w, "; created %s", when(p.Created, now))
		}
		if fe := ps.Part.FilesExpire; !p.Ended && !fe.IsZero() {
			// Gemini gives a batch no end of its own, but the files its
			// requests name go 48 hours after their upload.
			fmt.Fprintf(w, "; its uploaded files expire %s", when(fe, now))
		}
		if p.Failure != nil {
			fmt.Fprintf(w, "; %s", esc(p.Failure.Reason))
		}
		fmt.Fprintln(w)
	}
	if st.Cleaned && st.files() > 0 {
		fmt.Fprintf(w, "  collected; the %d %s uploaded for it deleted\n", st.files(), english.Plural(st.files(), "file", "files"))
	}
}

// when is a time, and how far it is from now: "2026-11-30 17:05 UTC (in
// 23h10m)".
func when(t, now time.Time) string {
	d := t.Sub(now).Round(time.Minute)
	rel := "now"
	switch {
	case d > 0:
		rel = "in " + shortDuration(d)
	case d < 0:
		rel = shortDuration(-d) + " ago"
	}
	return fmt.Sprintf("%s (%s)", t.UTC().Format("2006-01-02 15:04 UTC"), rel)
}

func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}
