package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm"
)

// The Batch Mode's documented limits: requests travel
// inline in the batch's own request up to 20 MB in all; beyond, they go
// as a JSON Lines file through the Files API, of at most 2 GB. The Files
// API deletes a file 48 hours after its upload.
const (
	MaxBatchInline = 20_000_000
	MaxBatchFile   = 2_000_000_000
	FileLifetime   = 48 * time.Hour
)

// batchFileType is the MIME type of a batch's input file.
const batchFileType = "application/jsonl"

var _ llm.Batcher = (*Provider)(nil)

// BatchLimits: a batch's input file is at most 2 GB, and its requests
// go inline up to 20 MB; Gemini sets no bound on the number of requests.
// Its uploads (media, input files) live 48 hours.
func (p *Provider) BatchLimits() llm.BatchLimits {
	return llm.BatchLimits{MaxBytes: MaxBatchFile, MaxInline: MaxBatchInline, FileLifetime: FileLifetime}
}

// batchEntry is one line of a batch's input file:
// {"key": ..., "request": GenerateContentRequest}.
type batchEntry struct {
	Key     string       `json:"key"`
	Request batchRequest `json:"request"`
}

// batchRequest is the part of a GenerateContentRequest a batch entry
// uses, in the REST API's JSON.
type batchRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

// BatchEntry is one request of a batch as a line of its input file: the
// contents Generate would send for req.
func (p *Provider) BatchEntry(key string, req *llm.Request) ([]byte, error) {
	if len(req.Tools) > 0 {
		return nil, errors.New("gemini: a batch request takes no tools")
	}
	contents, err := toContents(req.Messages)
	if err != nil {
		return nil, err
	}
	r := batchRequest{Contents: contents}
	if req.System != "" {
		r.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if p.maxTokens > 0 {
		r.GenerationConfig = &genai.GenerationConfig{MaxOutputTokens: p.maxTokens}
	}
	entry, err := json.Marshal(batchEntry{Key: key, Request: r})
	if err != nil {
		return nil, fmt.Errorf("gemini: batch entry %s: %w", key, err)
	}
	return entry, nil
}

// SubmitBatch creates a batch: its entries inline when they come to 20 MB
// at most (and in.AsFile does not ask otherwise), else uploaded as a JSON
// Lines file first (and deleted again should the batch not be created).
func (p *Provider) SubmitBatch(ctx context.Context, in llm.BatchInput) (b *llm.Batch, err error) {
	if in.Count == 0 || in.Bytes == 0 {
		return nil, errors.New("gemini: a batch needs at least one request")
	}
	src := &genai.BatchJobSource{}
	var input string
	if !in.AsFile && in.Bytes <= MaxBatchInline {
		if src.InlinedRequests, err = inlined(in); err != nil {
			return nil, err
		}
	} else {
		uri, err := p.upload(ctx, io.NewSectionReader(in.Entries, 0, in.Bytes), batchFileType, in.Name+".jsonl", defaultFileWait)
		if err != nil {
			return nil, fmt.Errorf("upload the batch's requests: %w", err)
		}
		input = fileName(uri)
		src.FileName = input
		defer func() {
			if err != nil {
				forget(p.client.Files, input)
			}
		}()
	}
	var job *genai.BatchJob
	err = p.guard(func() (err error) {
		job, err = p.client.Batches.Create(ctx, p.model, src, &genai.CreateBatchJobConfig{DisplayName: in.Name})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create a batch: %w", err)
	}
	if b, err = fromJob(job); err != nil {
		return nil, err
	}
	if input != "" {
		b.Files = []string{input}
	}
	return b, nil
}

// inlined reads the entries back as the inlined requests of a batch.
func inlined(in llm.BatchInput) ([]*genai.InlinedRequest, error) {
	reqs := make([]*genai.InlinedRequest, 0, in.Count)
	sc := bufio.NewScanner(io.NewSectionReader(in.Entries, 0, in.Bytes))
	sc.Buffer(nil, MaxBatchInline+1)
	for sc.Scan() {
		var e batchEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("gemini: read a batch entry back: %w", err)
		}
		r := &genai.InlinedRequest{Contents: e.Request.Contents, Metadata: map[string]string{"key": e.Key}}
		if e.Request.SystemInstruction != nil || e.Request.GenerationConfig != nil {
			r.Config = &genai.GenerateContentConfig{SystemInstruction: e.Request.SystemInstruction}
			if g := e.Request.GenerationConfig; g != nil {
				r.Config.MaxOutputTokens = g.MaxOutputTokens
			}
		}
		reqs = append(reqs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gemini: read the batch entries back: %w", err)
	}
	return reqs, nil
}

// Batch says where a batch stands: its requests by outcome, and, of a
// batch that failed as a whole, why, in Gemini's words. It reads the
// batch as the long-running operation it is, in one look, for what
// genai's Batches.Get drops on the Gemini API (its batchJobFromMldev maps
// neither "batchStats" nor "error").
func (p *Provider) Batch(ctx context.Context, id string) (*llm.Batch, error) {
	op, err := p.operation(ctx, id)
	if err != nil {
		return nil, err
	}
	return fromOperation(op)
}

// fromOperation is the batch a look at its operation saw.
func fromOperation(op *genai.GenerateVideosOperation) (*llm.Batch, error) {
	meta := op.Metadata
	job := &genai.BatchJob{Name: op.Name, State: jobState(meta["state"])}
	job.CreateTime, _ = time.Parse(time.RFC3339Nano, stringOf(meta["createTime"]))
	job.EndTime, _ = time.Parse(time.RFC3339Nano, stringOf(meta["endTime"]))
	if msg := stringOf(op.Error["message"]); msg != "" {
		job.Error = &genai.JobError{Message: msg}
	}
	b, err := fromJob(job)
	if err != nil {
		return nil, err
	}
	b.Counts = batchStats(meta)
	return b, nil
}

var _ llm.BatchFinder = (*Provider)(nil)

// FindBatch finds the latest batch of the display name name created at
// since or after, among the key's batches (genai's Batches.All, page by
// page), and reads it whole as Batch does, with the input file its
// operation names.
func (p *Provider) FindBatch(ctx context.Context, name string, since time.Time) (*llm.Batch, error) {
	var found *genai.BatchJob
	err := p.guard(func() error {
		for job, err := range p.client.Batches.All(ctx) {
			if err != nil {
				return err
			}
			if job == nil || job.DisplayName != name || job.CreateTime.Before(since) {
				continue
			}
			if found == nil || job.CreateTime.After(found.CreateTime) {
				found = job
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list batches: %w", err)
	}
	if found == nil {
		return nil, nil
	}
	op, err := p.operation(ctx, found.Name)
	if err != nil {
		return nil, err
	}
	b, err := fromOperation(op)
	if err != nil {
		return nil, err
	}
	if in, _ := op.Metadata["inputConfig"].(map[string]any); in != nil {
		if f := stringOf(in["fileName"]); f != "" {
			b.Files = []string{f}
		}
	}
	return b, nil
}

// jobState is the state of a batch's metadata as genai names it: the API
// says BATCH_STATE_RUNNING, genai JOB_STATE_RUNNING (its tJobState).
func jobState(v any) genai.JobState {
	s := stringOf(v)
	if rest, ok := strings.CutPrefix(s, "BATCH_STATE_"); ok {
		s = "JOB_STATE_" + rest
	}
	return genai.JobState(s)
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// operation reads the batch name as a long-running operation: genai
// reads any operation of the Gemini API by its name, metadata and error
// included, through Operations.GetVideosOperation.
func (p *Provider) operation(ctx context.Context, name string) (op *genai.GenerateVideosOperation, err error) {
	err = p.guard(func() (err error) {
		op, err = p.client.Operations.GetVideosOperation(ctx, &genai.GenerateVideosOperation{Name: name}, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get batch %s: %w", name, err)
	}
	if op == nil {
		return nil, &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("batch %s: the answer is no operation", name)}
	}
	return op, nil
}

// batchStats are the counts of a batch's metadata (BatchStats: int64s,
// which JSON writes as strings), nil when it has none.
func batchStats(meta map[string]any) *llm.BatchCounts {
	stats, _ := meta["batchStats"].(map[string]any)
	if stats == nil {
		return nil
	}
	count := func(name string) int {
		switch v := stats[name].(type) {
		case string:
			n, _ := strconv.Atoi(v)
			return n
		case float64:
			return int(v)
		}
		return 0
	}
	return &llm.BatchCounts{
		Processing: count("pendingRequestCount"),
		Succeeded:  count("successfulRequestCount"),
		Errored:    count("failedRequestCount"),
	}
}

func (p *Provider) job(ctx context.Context, id string) (job *genai.BatchJob, err error) {
	err = p.guard(func() (err error) {
		job, err = p.client.Batches.Get(ctx, id, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get batch %s: %w", id, err)
	}
	return job, nil
}

// guard runs an SDK call, its errors wrapped, and a panic in the SDK (it
// indexes what it decodes without checking it) made an error: a
// provider's answer never crashes kesoku.
func (p *Provider) guard(call func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("the SDK could not read it (%v)", v)}
		}
	}()
	if err := call(); err != nil {
		return p.wrap(err)
	}
	return nil
}

// ended are the states of a batch Gemini is done with.
var ended = map[genai.JobState]bool{
	genai.JobStateSucceeded: true, genai.JobStateFailed: true, genai.JobStateCancelled: true,
	genai.JobStateExpired: true, genai.JobStatePartiallySucceeded: true,
}

// fromJob checks what the API said of a batch and translates it.
func fromJob(job *genai.BatchJob) (*llm.Batch, error) {
	if job == nil || job.Name == "" {
		return nil, &llm.MalformedError{Provider: Name, Problem: "the answer names no batch"}
	}
	b := &llm.Batch{ID: job.Name, State: string(job.State), Ended: ended[job.State], Created: job.CreateTime, EndedAt: job.EndTime}
	switch job.State {
	case genai.JobStateFailed, genai.JobStateCancelled, genai.JobStateExpired:
		reason := "Gemini gave no reason"
		if job.Error != nil && job.Error.Message != "" {
			reason = job.Error.Message
		}
		b.Failure = &llm.BatchError{Provider: Name, Batch: job.Name, Outcome: outcomes[job.State], Reason: reason}
	}
	if d := job.Dest; d != nil && len(d.InlinedResponses) > 0 && b.Ended {
		c := &llm.BatchCounts{}
		for _, r := range d.InlinedResponses {
			if r.Error != nil {
				c.Errored++
			} else {
				c.Succeeded++
			}
		}
		b.Counts = c
	}
	return b, nil
}

// outcomes say what happened to the requests of a batch that did not
// succeed as a whole.
var outcomes = map[genai.JobState]string{
	genai.JobStateFailed:    "failed with its batch (JOB_STATE_FAILED)",
	genai.JobStateCancelled: "was cancelled with its batch (JOB_STATE_CANCELLED)",
	genai.JobStateExpired:   "expired with its batch (JOB_STATE_EXPIRED)",
}

// BatchResults reads the results of an ended batch: from the batch
// itself for inline requests, or from its results file.
func (p *Provider) BatchResults(ctx context.Context, b *llm.Batch, fn func(key string, resp *llm.Response, err error) error) error {
	job, err := p.job(ctx, b.ID)
	if err != nil {
		return err
	}
	d := job.Dest
	switch {
	case d == nil:
		return nil // a batch that failed as a whole has no results
	case d.FileName != "":
		if err := p.resultsFile(ctx, d.FileName, fn); err != nil {
			return fmt.Errorf("download the results of batch %s: %w", b.ID, err)
		}
		return nil
	}
	for i, r := range d.InlinedResponses {
		key := r.Metadata["key"]
		if key == "" {
			return &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("inline response %d of batch %s has no key", i+1, b.ID)}
		}
		resp, err := p.result(r.Response, r.Error)
		if err := fn(key, resp, err); err != nil {
			return err
		}
	}
	return nil
}

// resultLine is one line of a batch's results file: the key, and the
// response or the error.
type resultLine struct {
	Key      string                         `json:"key"`
	Response *genai.GenerateContentResponse `json:"response"`
	Error    *resultError                   `json:"error"`
	Status   *resultError                   `json:"status"`
}

type resultError struct {
	Code    int32  `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// resultsFile reads the results file name (files/…) a line at a time as
// it downloads: genai's Files.Download holds a file whole in memory, and
// the results of a batch of 2 GB of requests may be as large. The request
// is the one Files.Download sends, through the same client.
func (p *Provider) resultsFile(ctx context.Context, name string, fn func(key string, resp *llm.Response, err error) error) error {
	cc := p.client.ClientConfig()
	base, err := url.Parse(cc.HTTPOptions.BaseURL)
	if err != nil {
		return fmt.Errorf("gemini: base URL: %w", err)
	}
	u := base.JoinPath(cc.HTTPOptions.APIVersion, "files", strings.TrimPrefix(name, "files/")+":download")
	u.RawQuery = "alt=media"
	req, err := http.NewRequestWithContext(llm.Results(ctx), http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-goog-api-key", cc.APIKey)
	resp, err := p.transport.Client().Do(req)
	if err != nil {
		return p.wrap(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		// The Transport hands on only an error body that is the API's own
		// (JSON); it is read whole, within MaxResponse.
		var body struct {
			Error struct {
				Message, Status string
			}
		}
		data, _ := io.ReadAll(resp.Body)
		json.Unmarshal(data, &body)
		return &llm.APIError{Provider: Name, StatusCode: resp.StatusCode, Type: body.Error.Status, Message: p.redact.String(body.Error.Message)}
	}
	return p.resultLines(resp.Body, fn)
}

// resultLines reads a batch's results file, a line at a time: the
// Transport holds each line to MaxEvent.
func (p *Provider) resultLines(in io.Reader, fn func(key string, resp *llm.Response, err error) error) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		switch {
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil
		case err != nil && !errors.Is(err, io.EOF):
			return p.wrap(err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r resultLine
		if err := json.Unmarshal(line, &r); err != nil || r.Key == "" {
			return &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("line %d of the results file is no keyed result", n)}
		}
		var jobErr *genai.JobError
		for _, e := range []*resultError{r.Error, r.Status} {
			if e != nil && (e.Code != 0 || e.Message != "") {
				code := e.Code
				jobErr = &genai.JobError{Code: &code, Message: e.Message}
				if e.Status != "" {
					jobErr.Details = []string{e.Status}
				}
			}
		}
		resp, err := p.result(r.Response, jobErr)
		if err := fn(r.Key, resp, err); err != nil {
			return err
		}
	}
}

// result translates one request's response, or its error.
func (p *Provider) result(resp *genai.GenerateContentResponse, jobErr *genai.JobError) (*llm.Response, error) {
	if jobErr != nil {
		e := &llm.APIError{Provider: Name, Message: p.redact.String(jobErr.Message)}
		if len(jobErr.Details) > 0 {
			e.Type = jobErr.Details[0]
		}
		return nil, e
	}
	if resp == nil {
		return nil, &llm.MalformedError{Provider: Name, Problem: "a batch result with neither a response nor an error"}
	}
	return fromResponse(resp)
}

// DeleteFile deletes a file kesoku uploaded, named files/… or by its URI.
func (p *Provider) DeleteFile(ctx context.Context, name string) error {
	err := p.guard(func() error {
		_, err := p.client.Files.Delete(ctx, fileName(name), nil)
		return err
	})
	var api *llm.APIError
	if errors.As(err, &api) && api.StatusCode == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", fileName(name), err)
	}
	return nil
}

// fileName is the resource name (files/abc) of a file named by its URI
// (https://…/v1beta/files/abc) or its name.
func fileName(uri string) string {
	if _, id, ok := strings.Cut(uri, "/files/"); ok {
		return "files/" + id
	}
	return uri
}
