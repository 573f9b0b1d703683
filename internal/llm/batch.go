package llm

import (
	"context"
	"io"
	"time"
)

// Batcher is a provider with a batch API: requests sent together and
// answered within a day at half the price (Claude's Message Batches,
// Gemini's Batch Mode). Each request of a batch is an entry: the
// provider's own JSON for one request, under a key that the results carry
// back, since they come in no particular order.
type Batcher interface {
	Provider
	// BatchLimits bounds one batch.
	BatchLimits() BatchLimits
	// BatchEntry translates req into the entry keyed key: one line of
	// JSON, without its line break.
	BatchEntry(key string, req *Request) ([]byte, error)
	// SubmitBatch creates a batch of the entries in in.
	SubmitBatch(ctx context.Context, in BatchInput) (*Batch, error)
	// Batch says where the batch id stands.
	Batch(ctx context.Context, id string) (*Batch, error)
	// BatchResults hands each result of the ended batch b to fn, in no
	// particular order: its key, and the model's turn, or the error the
	// provider gave for that request (a *BatchError when the provider did
	// not answer it at all). An error of fn stops it and is returned.
	BatchResults(ctx context.Context, b *Batch, fn func(key string, resp *Response, err error) error) error
	// DeleteFile deletes a file the provider holds for kesoku (an uploaded
	// file, a batch's input), by its name or URI. A file that is gone
	// already is no error.
	DeleteFile(ctx context.Context, name string) error
}

// BatchFinder is a Batcher that finds a batch by the name kesoku gave it
// (BatchInput.Name; Gemini's display name). A submit stopped while it
// sent a part (killed, or cut off before the answer) looks for the part
// before it sends it again, which the provider would run, and bill,
// twice.
type BatchFinder interface {
	// FindBatch returns the latest batch named name created at since or
	// after, with the files kesoku put there for it (its input file); nil
	// when there is none.
	FindBatch(ctx context.Context, name string, since time.Time) (*Batch, error)
}

// BatchLimits bounds one batch: how many entries, and how many bytes of
// them (each entry's JSON and its line break).
type BatchLimits struct {
	MaxRequests int
	MaxBytes    int64
	// MaxInline, for a provider that takes a batch either inline or as a
	// file (Gemini), is the most bytes it takes inline: a batch of more
	// is sent as a file (BatchInput.AsFile). 0 for a provider that takes
	// every batch inline.
	MaxInline int64
	// FileLifetime, for a provider whose Files API deletes uploads on its
	// own (Gemini: 48 hours after the upload), is how long an uploaded
	// file lives: a batch that has not run by then loses the files its
	// requests name. 0 where uploads stay, or there are none.
	FileLifetime time.Duration
}

// BatchInput is the entries of one batch, one a line, as BatchEntry made
// them.
type BatchInput struct {
	// Entries reads them; Bytes is how many bytes there are, Count how
	// many entries.
	Entries io.ReaderAt
	Bytes   int64
	Count   int
	// Name names the batch where the provider names batches (Gemini's
	// display name), so that a user can tell kesoku's batches apart.
	Name string
	// AsFile sends the entries as a file (Gemini's Files API), though
	// they are few enough to go inline; a batch over the provider's
	// MaxInline goes as a file anyway.
	AsFile bool
}

// Batch is one batch as the provider says it stands.
type Batch struct {
	// ID is the provider's name for it: msgbatch_…, batches/….
	ID string
	// Ended says the provider is done with it: its results can be read
	// (or, for a batch that failed as a whole, will never come).
	Ended bool
	// State is the provider's own word for where it stands
	// (in_progress, ended, JOB_STATE_RUNNING…).
	State string
	// Counts are the requests by outcome, when the provider tells them.
	Counts *BatchCounts
	// Created, Expires and EndedAt are when it was created, when the
	// provider gives up on what it has not done, and when it ended; zero
	// when the provider does not say.
	Created, Expires, EndedAt time.Time
	// Files are the files the provider holds for the batch that kesoku
	// put there (Gemini's input file): deleted once its results are in.
	Files []string
	// Failure is the provider's reason when the whole batch failed,
	// expired or was cancelled: every request without a result gets it.
	Failure *BatchError
}

// BatchCounts count a batch's requests by where they stand.
type BatchCounts struct {
	Processing, Succeeded, Errored, Canceled, Expired int
}

// BatchError is why a batch's request has no answer: the provider
// errored on it, cancelled it, or it expired before the provider reached
// it.
type BatchError struct {
	// Provider is "gemini" or "claude".
	Provider string
	// Batch is the batch's ID.
	Batch string
	// Outcome is the provider's word: errored, canceled, expired,
	// JOB_STATE_FAILED…
	Outcome string
	// Reason is what the provider said, when it said anything.
	Reason string
}

func (e *BatchError) Error() string {
	msg := e.Provider + " batch " + e.Batch + ": the request " + e.Outcome
	if e.Reason != "" {
		msg += ": " + OneLine(e.Reason)
	}
	return msg
}
