package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/kesoku/kesoku/internal/llm"
)

// The Message Batches API's limits on one batch: 100,000 requests or
// 256 MB, whichever comes first (Anthropic's documented limits).
const (
	MaxBatchRequests = 100_000
	MaxBatchBytes    = 256_000_000
)

// batchFrame is what a batch's body holds besides its entries:
// {"requests":[ and ]}, and a comma between two entries where the line
// break is.
const (
	batchHead = `{"requests":[`
	batchTail = `]}`
)

var _ llm.Batcher = (*Provider)(nil)

// BatchLimits are the Message Batches API's, less the body's frame.
func (p *Provider) BatchLimits() llm.BatchLimits {
	return llm.BatchLimits{MaxRequests: MaxBatchRequests, MaxBytes: MaxBatchBytes - int64(len(batchHead)+len(batchTail))}
}

// BatchEntry is one request of a Message Batch: {"custom_id": key,
// "params": ...}, the params the very Messages request Generate sends
// for req.
func (p *Provider) BatchEntry(key string, req *llm.Request) ([]byte, error) {
	params, err := p.newParams(req)
	if err != nil {
		return nil, err
	}
	entry, err := json.Marshal(struct {
		CustomID string                     `json:"custom_id"`
		Params   anthropic.MessageNewParams `json:"params"`
	}{key, params})
	if err != nil {
		return nil, fmt.Errorf("claude: batch entry %s: %w", key, err)
	}
	return entry, nil
}

// SubmitBatch creates a Message Batch. The body is read from the entries
// as it is sent, never held whole: a batch may be 256 MB. It is sent
// once: a batch created twice is paid twice, and a failure here leaves
// the entries to be sent again by the caller.
func (p *Provider) SubmitBatch(ctx context.Context, in llm.BatchInput) (*llm.Batch, error) {
	if in.Count == 0 || in.Bytes == 0 {
		return nil, errors.New("claude: a batch needs at least one request")
	}
	// The entries end each in a line break: the last is dropped, the
	// others become the commas between entries.
	entries := &commaReader{r: io.NewSectionReader(in.Entries, 0, in.Bytes-1)}
	body := io.MultiReader(bytes.NewReader([]byte(batchHead)), entries, bytes.NewReader([]byte(batchTail)))
	b, err := p.client.Messages.Batches.New(ctx, anthropic.MessageBatchNewParams{},
		option.WithRequestBody("application/json", body))
	if err != nil {
		return nil, fmt.Errorf("create a message batch: %w", p.wrap(ctx, err))
	}
	return fromBatch(b)
}

// commaReader reads JSON Lines as the elements of a JSON array: each line
// break a comma. The entries hold no raw line break (JSON escapes them in
// strings), so every one is a separator.
type commaReader struct{ r io.Reader }

func (c *commaReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			p[i] = ','
		}
	}
	return n, err
}

// Batch says where a Message Batch stands.
func (p *Provider) Batch(ctx context.Context, id string) (*llm.Batch, error) {
	b, err := p.client.Messages.Batches.Get(ctx, id, anthropic.MessageBatchGetParams{})
	if err != nil {
		return nil, fmt.Errorf("get message batch %s: %w", id, p.wrap(ctx, err))
	}
	return fromBatch(b)
}

// fromBatch checks what the API said of a batch and translates it.
func fromBatch(b *anthropic.MessageBatch) (*llm.Batch, error) {
	if b == nil || b.ID == "" || b.Type != "message_batch" {
		return nil, malformed("the answer is not a message batch")
	}
	c := b.RequestCounts
	return &llm.Batch{
		ID:    b.ID,
		Ended: b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded,
		State: string(b.ProcessingStatus),
		Counts: &llm.BatchCounts{
			Processing: int(c.Processing), Succeeded: int(c.Succeeded), Errored: int(c.Errored),
			Canceled: int(c.Canceled), Expired: int(c.Expired),
		},
		Created: b.CreatedAt, Expires: b.ExpiresAt, EndedAt: b.EndedAt,
	}, nil
}

// BatchResults streams the results of an ended Message Batch, a line at
// a time, whatever Content-Type they come as.
func (p *Provider) BatchResults(ctx context.Context, b *llm.Batch, fn func(key string, resp *llm.Response, err error) error) error {
	// The SDK reads the half line a broken stream leaves as a line of its
	// own, and reports that it is no JSON rather than why the stream
	// broke (a bound of the Transport's): that is told instead.
	watched, failures := llm.WatchFailures(llm.Results(ctx))
	stream := p.client.Messages.Batches.ResultsStreaming(watched, b.ID, anthropic.MessageBatchResultsParams{})
	defer stream.Close()
	for stream.Next() {
		r := stream.Current()
		if r.CustomID == "" {
			return malformed("a batch result without a custom_id")
		}
		var resp *llm.Response
		var err error
		switch r.Result.Type {
		case "succeeded":
			resp, err = fromMessage(&r.Result.Message, nil)
		case "errored":
			e := r.Result.Error.Error
			err = &llm.APIError{Provider: Name, Type: e.Type, Message: p.redact.String(e.Message)}
		case "canceled":
			err = &llm.BatchError{Provider: Name, Batch: b.ID, Outcome: "was canceled", Reason: "the batch was canceled before Claude processed it"}
		case "expired":
			err = &llm.BatchError{Provider: Name, Batch: b.ID, Outcome: "expired", Reason: "Claude did not reach it within the batch's 24 hours"}
		default:
			err = malformed(fmt.Sprintf("a batch result of type %q", r.Result.Type))
		}
		if err := fn(r.CustomID, resp, err); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		if bound := failures.Err(); bound != nil {
			err = bound
		}
		return fmt.Errorf("read the results of message batch %s: %w", b.ID, p.wrap(ctx, err))
	}
	return nil
}

// DeleteFile has nothing to do: kesoku sends Claude every file inline.
func (p *Provider) DeleteFile(context.Context, string) error { return nil }
