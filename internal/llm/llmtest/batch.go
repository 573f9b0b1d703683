package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The fakes also play the providers' batch APIs, as their SDKs speak
// them:
//
// Claude's Message Batches: POST /v1/messages/batches creates a batch of
// {custom_id, params}; GET /v1/messages/batches/{id} says where it
// stands; GET …/{id}/results streams its results as JSON Lines, in no
// particular order (the fake gives them in reverse).
//
// Gemini's Batch Mode: POST /v1beta/models/{model}:batchGenerateContent
// creates a batch from inline requests or from an uploaded JSON Lines
// file of {key, request}; GET /v1beta/batches lists them; GET
// /v1beta/batches/{id} says where it stands
// (a long-running operation) and, once it has ended, holds the inline
// responses or names a results file, downloaded from
// /v1beta/files/{id}:download.
//
// Each request of a batch is answered with the next scripted reply, as a
// model request would be: its text, its stop reason, or its error
// (Status and Error); BatchResult makes it expired or canceled (Claude).
// A batch ends once it has been looked at (GET) more than SetBatchPolls
// times. Creation refuses what the real APIs refuse: an empty batch,
// more than 100,000 requests or 256 MB (Claude), 20 MB of inline
// requests (Gemini), a bad or repeated custom_id, and each request by
// the rules of a single one (validate.go), which includes files it cites
// that are not uploaded, or deleted.

// Batch API limits.
const (
	// ClaudeMaxBatchRequests and ClaudeMaxBatchBytes bound one Message
	// Batch.
	ClaudeMaxBatchRequests = 100_000
	ClaudeMaxBatchBytes    = 256_000_000
	// GeminiMaxBatchInline bounds a Gemini batch of inline requests.
	GeminiMaxBatchInline = 20_000_000
)

// Batch is a batch the fake holds.
type Batch struct {
	// ID is its name: msgbatch_fake_N, batches/bN.
	ID string
	// DisplayName is Gemini's display name.
	DisplayName string
	// Keys are its requests' keys (custom_id, key), in the order sent.
	Keys []string
	// Requests are its requests as sent: Claude's params, Gemini's
	// GenerateContentRequest.
	Requests []json.RawMessage
	// Input is the input file of a Gemini batch from a file.
	Input string
	// Polls is how many times it was looked at.
	Polls int
}

type batchStore struct {
	mu sync.Mutex
	// polls is how many looks a batch stays in progress for.
	polls int
	// state is the state a Gemini batch ends in; succeeded when "".
	state string
	// limit is the largest body creating a batch takes; the provider's
	// own when 0.
	limit int
	// trickle, when set, makes every batch's results a body that never
	// ends: a space every trickle.
	trickle Duration
	batches []*fakeBatch
}

type fakeBatch struct {
	Batch
	model   string
	created time.Time
	// ended is when it ended, zero before.
	ended  time.Time
	turns  []*turn
	inline bool
}

// SetBatchPolls makes every batch stay in progress for its first n looks
// (GET), and end at the next.
func (s *Server) SetBatchPolls(n int) {
	s.batches.mu.Lock()
	s.batches.polls = n
	s.batches.mu.Unlock()
}

// SetBatchState makes every Gemini batch end in state (JOB_STATE_FAILED,
// JOB_STATE_EXPIRED, JOB_STATE_CANCELLED…, as the SDK names them, or
// the API's BATCH_STATE_…) rather than succeed.
func (s *Server) SetBatchState(state string) {
	s.batches.mu.Lock()
	s.batches.state = strings.Replace(state, "JOB_STATE_", "BATCH_STATE_", 1)
	s.batches.mu.Unlock()
}

// SetResultsTrickle makes the results of every batch (Claude's results,
// Gemini's results file) a body that never ends, though it is never
// idle: a space every d, in place of the results, until the client gives
// up.
func (s *Server) SetResultsTrickle(d time.Duration) {
	s.batches.mu.Lock()
	s.batches.trickle = Duration(d)
	s.batches.mu.Unlock()
}

// resultsTrickle answers with the never-ending results, and reports
// whether it did.
func (s *Server) resultsTrickle(w http.ResponseWriter, r *http.Request, contentType string) bool {
	s.batches.mu.Lock()
	d := s.batches.trickle
	s.batches.mu.Unlock()
	if d <= 0 {
		return false
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	flush(w)
	s.trickle(w, r, " ", d)
	return true
}

// SetBatchLimit sets the largest body that creates a batch, in place of
// the provider's own.
func (s *Server) SetBatchLimit(n int) {
	s.batches.mu.Lock()
	s.batches.limit = n
	s.batches.mu.Unlock()
}

// Batches returns the batches created so far, in order.
func (s *Server) Batches() []Batch {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	out := make([]Batch, len(s.batches.batches))
	for i, b := range s.batches.batches {
		out[i] = b.Batch
		out[i].Keys = append([]string(nil), b.Keys...)
		out[i].Requests = append([]json.RawMessage(nil), b.Requests...)
	}
	return out
}

// serveBatches answers r when it is a batch API request, and reports
// whether it was one.
func (s *Server) serveBatches(w http.ResponseWriter, r *http.Request) bool {
	var wire wireFormat
	var handle func(w http.ResponseWriter, r *http.Request, body []byte)
	p := r.URL.Path
	switch {
	case s.provider == Claude && p == "/v1/messages/batches" && r.Method == http.MethodPost:
		wire, handle = claudeWire{}, s.claudeCreateBatch
	case s.provider == Claude && strings.HasPrefix(p, "/v1/messages/batches/") && r.Method == http.MethodGet:
		wire, handle = claudeWire{}, s.claudeGetBatch
	case s.provider == Gemini && strings.HasSuffix(p, ":batchGenerateContent") && r.Method == http.MethodPost:
		wire, handle = geminiWire{}, s.geminiCreateBatch
	case s.provider == Gemini && p == "/v1beta/batches" && r.Method == http.MethodGet:
		wire, handle = geminiWire{}, s.geminiListBatches
	case s.provider == Gemini && strings.HasPrefix(p, "/v1beta/batches/") && r.Method == http.MethodGet:
		wire, handle = geminiWire{}, s.geminiGetBatch
	case s.provider == Gemini && strings.Contains(p, "/v1beta/files/") && strings.HasSuffix(p, ":download") && r.Method == http.MethodGet:
		wire, handle = geminiWire{}, s.geminiDownload
	default:
		return false
	}
	body, err := readBody(r)
	if err != nil {
		wire.writeError(w, http.StatusBadRequest, err.Error())
		return true
	}
	req := &Request{Method: r.Method, Path: p, Query: r.URL.RawQuery, Header: r.Header.Clone()}
	if key := s.takeKey(req); key == "" || (s.key != "" && key != s.key) {
		wire.writeError(w, http.StatusUnauthorized, "fake: API key not valid. Please pass a valid API key.")
		return true
	}
	handle(w, r, body)
	return true
}

func readBody(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

// takeTurns takes the next n scripted replies, one per request of a
// batch; nil when the script has fewer left.
func (s *Server) takeTurns(n int, model string) []*turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies)-s.served < n {
		return nil
	}
	turns := make([]*turn, n)
	for i := range turns {
		turns[i] = &turn{Reply: s.replies[s.served], model: model, n: s.served + 1}
		s.served++
	}
	return turns
}

// price sets what each request of a batch costs, as the fake counts a
// request made alone (or as its reply says).
func (s *Server) price(wire wireFormat, b *fakeBatch) {
	for i, t := range b.turns {
		t.usage = wire.usage(s, b.Requests[i], t.Reply)
		if t.Reply.Usage != nil {
			t.usage = *t.Reply.Usage
		}
	}
}

// addBatch keeps a new batch and returns it.
func (s *Server) addBatch(b *fakeBatch) *fakeBatch {
	st := &s.batches
	st.mu.Lock()
	defer st.mu.Unlock()
	n := len(st.batches) + 1
	if s.provider == Claude {
		b.ID = fmt.Sprintf("msgbatch_fake_%d", n)
	} else {
		b.ID = fmt.Sprintf("batches/b%d", n)
	}
	b.created = time.Now().UTC().Truncate(time.Second)
	st.batches = append(st.batches, b)
	return b
}

// batchView is a batch as one look saw it.
type batchView struct {
	*fakeBatch
	// polls is how many looks it had; ended when it ended, zero while
	// it is in progress.
	polls int
	ended time.Time
}

// lookBatch finds the batch id and counts a look at it when look is set.
func (s *Server) lookBatch(id string, look bool) *batchView {
	st := &s.batches
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, b := range st.batches {
		if b.ID == id {
			if look {
				b.Polls++
			}
			if b.Polls > st.polls && b.ended.IsZero() {
				b.ended = time.Now().UTC().Truncate(time.Second)
			}
			return &batchView{fakeBatch: b, polls: b.Polls, ended: b.ended}
		}
	}
	return nil
}

func (s *Server) batchLimit(own int) int {
	s.batches.mu.Lock()
	defer s.batches.mu.Unlock()
	if s.batches.limit > 0 {
		return s.batches.limit
	}
	return own
}

// customID is the pattern Claude holds a batch request's custom_id to.
var customID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (s *Server) claudeCreateBatch(w http.ResponseWriter, _ *http.Request, body []byte) {
	wire := claudeWire{}
	if len(body) > s.batchLimit(ClaudeMaxBatchBytes) {
		wire.writeError(w, http.StatusRequestEntityTooLarge, "Request exceeds the maximum allowed number of bytes.")
		return
	}
	var req struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		wire.writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error())
		return
	}
	n := len(req.Requests)
	switch {
	case n == 0:
		wire.writeError(w, http.StatusBadRequest, "requests: List should have at least 1 item after validation, not 0")
		return
	case n > ClaudeMaxBatchRequests:
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests: List should have at most %d items after validation, not %d", ClaudeMaxBatchRequests, n))
		return
	}
	b := &fakeBatch{}
	seen := map[string]bool{}
	for i, r := range req.Requests {
		if !customID.MatchString(r.CustomID) {
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i))
			return
		}
		if seen[r.CustomID] {
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.custom_id: custom_id %q is not unique within the batch", i, r.CustomID))
			return
		}
		seen[r.CustomID] = true
		var head struct {
			Model     string `json:"model"`
			MaxTokens *int   `json:"max_tokens"`
			Stream    bool   `json:"stream"`
		}
		json.Unmarshal(r.Params, &head)
		switch {
		case head.Model == "":
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.params.model: Field required", i))
			return
		case head.MaxTokens == nil || *head.MaxTokens < 1:
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.params.max_tokens: Input should be greater than or equal to 1", i))
			return
		case head.Stream:
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("requests.%d.params.stream: a batch request cannot stream", i))
			return
		}
		if ref := checkClaude(r.Params, ClaudeMaxRequest); ref != nil {
			wire.writeError(w, ref.status, fmt.Sprintf("requests.%d.params: %s", i, ref.msg))
			return
		}
		b.model = head.Model
		b.Keys = append(b.Keys, r.CustomID)
		b.Requests = append(b.Requests, r.Params)
	}
	if b.turns = s.takeTurns(n, b.model); b.turns == nil {
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("fake claude: no scripted reply left for the %d requests of the batch", n))
		return
	}
	s.price(wire, b)
	b = s.addBatch(b)
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(s.claudeBatch(&batchView{fakeBatch: b})))
}

// claudeBatch is a MessageBatch as the API shows it.
func (s *Server) claudeBatch(b *batchView) map[string]any {
	counts := map[string]int{"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	status := "in_progress"
	var endedAt, results any
	if !b.ended.IsZero() {
		status = "ended"
		endedAt = b.ended.Format(time.RFC3339)
		results = s.URL + "/v1/messages/batches/" + b.ID + "/results"
		for _, t := range b.turns {
			counts[claudeOutcome(t)]++
		}
	} else {
		counts["processing"] = len(b.turns)
	}
	return map[string]any{
		"id": b.ID, "type": "message_batch", "processing_status": status, "request_counts": counts,
		"created_at": b.created.Format(time.RFC3339), "expires_at": b.created.Add(24 * time.Hour).Format(time.RFC3339),
		"ended_at": endedAt, "results_url": results, "archived_at": nil, "cancel_initiated_at": nil,
	}
}

// claudeOutcome is the result type a turn gives a request of a batch.
func claudeOutcome(t *turn) string {
	switch {
	case t.BatchResult != "":
		return t.BatchResult
	case t.Status >= 400:
		return "errored"
	}
	return "succeeded"
}

func (s *Server) claudeGetBatch(w http.ResponseWriter, r *http.Request, _ []byte) {
	wire := claudeWire{}
	rest := strings.TrimPrefix(r.URL.Path, "/v1/messages/batches/")
	id, sub, _ := strings.Cut(rest, "/")
	b := s.lookBatch(id, sub == "")
	switch {
	case b == nil:
		wire.writeError(w, http.StatusNotFound, fmt.Sprintf("message batch %s not found", id))
		return
	case sub == "":
		w.Header().Set("Content-Type", "application/json")
		w.Write(mustJSON(s.claudeBatch(b)))
		return
	case sub != "results":
		wire.writeError(w, http.StatusNotFound, "fake claude: no such endpoint "+r.URL.Path)
		return
	case b.ended.IsZero():
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("message batch %s has not ended: its results are not available yet", id))
		return
	}
	if s.resultsTrickle(w, r, "application/x-jsonl") {
		return
	}
	w.Header().Set("Content-Type", "application/x-jsonl")
	for i := len(b.turns) - 1; i >= 0; i-- {
		t := b.turns[i]
		result := map[string]any{"type": claudeOutcome(t)}
		switch result["type"] {
		case "succeeded":
			result["message"] = json.RawMessage(claudeWire{}.message(t))
		case "errored":
			typ, ok := claudeErrorType[t.Status]
			if !ok {
				typ = "api_error"
			}
			result["error"] = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": t.Error}, "request_id": "req_fake"}
		}
		w.Write(mustJSON(map[string]any{"custom_id": b.Keys[i], "result": result}))
		w.Write([]byte("\n"))
	}
}

func (s *Server) geminiCreateBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	wire := geminiWire{}
	_, rest, _ := strings.Cut(r.URL.Path, "/models/")
	model, _, _ := strings.Cut(rest, ":")
	if len(body) > s.batchLimit(GeminiMaxBatchInline) {
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("Request payload size exceeds the limit: %d bytes.", s.batchLimit(GeminiMaxBatchInline)))
		return
	}
	var req struct {
		Batch struct {
			DisplayName string `json:"displayName"`
			InputConfig struct {
				FileName string `json:"fileName"`
				Requests *struct {
					Requests []struct {
						Request  json.RawMessage   `json:"request"`
						Metadata map[string]string `json:"metadata"`
					} `json:"requests"`
				} `json:"requests"`
			} `json:"inputConfig"`
		} `json:"batch"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		wire.writeError(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	in := req.Batch.InputConfig
	b := &fakeBatch{model: model}
	b.DisplayName = req.Batch.DisplayName
	switch {
	case b.DisplayName == "":
		wire.writeError(w, http.StatusBadRequest, "* BatchGenerateContentRequest.batch.display_name: display_name is required\n")
		return
	case (in.FileName == "") == (in.Requests == nil):
		wire.writeError(w, http.StatusBadRequest, "* BatchGenerateContentRequest.batch.input_config: exactly one of file_name and requests must be set\n")
		return
	case in.Requests != nil:
		b.inline = true
		for i, e := range in.Requests.Requests {
			if msg := s.checkGeminiBatchRequest(e.Request); msg != "" {
				wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("batch.input_config.requests.requests[%d].request: %s", i, msg))
				return
			}
			b.Keys = append(b.Keys, e.Metadata["key"])
			b.Requests = append(b.Requests, e.Request)
		}
	default:
		data, ok := s.fileData(in.FileName)
		if !ok {
			wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("File %s is not found: it was never uploaded, or is deleted.", in.FileName))
			return
		}
		b.Input = in.FileName
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, len(data)+1)
		seen := map[string]bool{}
		for n := 1; sc.Scan(); n++ {
			var e struct {
				Key     string          `json:"key"`
				Request json.RawMessage `json:"request"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Key == "" || seen[e.Key] {
				wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: line %d is no request with a key of its own", in.FileName, n))
				return
			}
			seen[e.Key] = true
			if msg := s.checkGeminiBatchRequest(e.Request); msg != "" {
				wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: line %d: %s", in.FileName, n, msg))
				return
			}
			b.Keys = append(b.Keys, e.Key)
			b.Requests = append(b.Requests, e.Request)
		}
	}
	if len(b.Keys) == 0 {
		wire.writeError(w, http.StatusBadRequest, "* BatchGenerateContentRequest.batch.input_config: the batch holds no request\n")
		return
	}
	if b.turns = s.takeTurns(len(b.Keys), model); b.turns == nil {
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("fake gemini: no scripted reply left for the %d requests of the batch", len(b.Keys)))
		return
	}
	s.price(wire, b)
	b = s.addBatch(b)
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(s.geminiOperation(&batchView{fakeBatch: b})))
}

// checkGeminiBatchRequest is what the API refuses in one request of a
// batch: what it refuses in a generateContent request, and files that are
// not there.
func (s *Server) checkGeminiBatchRequest(raw json.RawMessage) string {
	if ref := checkGemini(raw, GeminiMaxRequest); ref != nil {
		return ref.msg
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FileData *struct {
					FileURI string `json:"fileUri"`
				} `json:"fileData"`
			} `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(raw, &req)
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FileData == nil {
				continue
			}
			if !s.fileLive(p.FileData.FileURI) {
				return fmt.Sprintf("File %s is not found: it was never uploaded, or is deleted.", p.FileData.FileURI)
			}
		}
	}
	return ""
}

// geminiOperation is a batch as the API shows it: a long-running
// operation whose metadata is the GenerateContentBatch.
func (s *Server) geminiOperation(b *batchView) map[string]any {
	s.batches.mu.Lock()
	endState := s.batches.state
	s.batches.mu.Unlock()
	if endState == "" {
		endState = "BATCH_STATE_SUCCEEDED"
	}
	n := strconv.Itoa(len(b.turns))
	meta := map[string]any{
		"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
		"name":  b.ID, "displayName": b.DisplayName, "model": "models/" + b.model,
		"createTime": b.created.Format(time.RFC3339), "updateTime": b.created.Format(time.RFC3339),
		"state":      "BATCH_STATE_PENDING",
		"batchStats": map[string]any{"requestCount": n, "pendingRequestCount": n},
	}
	if b.Input != "" {
		meta["inputConfig"] = map[string]any{"fileName": b.Input}
	}
	op := map[string]any{"name": b.ID, "metadata": meta}
	if b.polls > 0 {
		meta["state"] = "BATCH_STATE_RUNNING"
	}
	if b.ended.IsZero() {
		return op
	}
	op["done"] = true
	meta["state"] = endState
	meta["endTime"] = b.ended.Format(time.RFC3339)
	if endState == "BATCH_STATE_SUCCEEDED" {
		// Counts are int64s, strings in JSON, as the API writes them.
		ok := 0
		for _, t := range b.turns {
			if t.Status < 400 {
				ok++
			}
		}
		meta["batchStats"] = map[string]any{"requestCount": n, "successfulRequestCount": strconv.Itoa(ok),
			"failedRequestCount": strconv.Itoa(len(b.turns) - ok), "pendingRequestCount": "0"}
	}
	if endState != "BATCH_STATE_SUCCEEDED" {
		op["error"] = map[string]any{"code": 13, "message": "fake gemini: the batch ended in " + endState}
		return op
	}
	if b.inline {
		var responses []any
		for i, t := range b.turns {
			r := map[string]any{"metadata": map[string]string{"key": b.Keys[i]}}
			if t.Status >= 400 {
				r["error"] = map[string]any{"code": t.Status, "message": t.Error}
			} else {
				r["response"] = json.RawMessage(geminiWire{}.message(t))
			}
			responses = append(responses, r)
		}
		meta["output"] = map[string]any{"inlinedResponses": map[string]any{"inlinedResponses": responses}}
		return op
	}
	meta["output"] = map[string]any{"responsesFile": s.resultsFile(b)}
	return op
}

// resultsFile is the name of a batch's results file, made the first time
// it is asked for.
func (s *Server) resultsFile(b *batchView) string {
	name := "files/batch-" + strings.TrimPrefix(b.ID, "batches/")
	s.addFile(name, "application/jsonl", func() []byte {
		var data bytes.Buffer
		for i, t := range b.turns {
			line := map[string]any{"key": b.Keys[i]}
			if t.Status >= 400 {
				st, ok := geminiStatus[t.Status]
				if !ok {
					st = "UNKNOWN"
				}
				line["error"] = map[string]any{"code": t.Status, "message": t.Error, "status": st}
			} else {
				line["response"] = json.RawMessage(geminiWire{}.message(t))
			}
			data.Write(mustJSON(line))
			data.WriteByte('\n')
		}
		return data.Bytes()
	})
	return name
}

func (s *Server) geminiGetBatch(w http.ResponseWriter, r *http.Request, _ []byte) {
	id := strings.TrimPrefix(r.URL.Path, "/v1beta/")
	b := s.lookBatch(id, true)
	if b == nil {
		geminiWire{}.writeError(w, http.StatusNotFound, fmt.Sprintf("Batch %s not found.", id))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(s.geminiOperation(b)))
}

// geminiListBatches lists the batches, newest first, as operations, two a
// page so that a client must follow nextPageToken; a listing counts no
// look at them.
func (s *Server) geminiListBatches(w http.ResponseWriter, r *http.Request, _ []byte) {
	const pageSize = 2
	st := &s.batches
	st.mu.Lock()
	ids := make([]string, 0, len(st.batches))
	for i := len(st.batches) - 1; i >= 0; i-- {
		ids = append(ids, st.batches[i].ID)
	}
	st.mu.Unlock()
	from, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
	from = min(max(from, 0), len(ids))
	to := min(from+pageSize, len(ids))
	ops := []any{}
	for _, id := range ids[from:to] {
		ops = append(ops, s.geminiOperation(s.lookBatch(id, false)))
	}
	page := map[string]any{"operations": ops}
	if to < len(ids) {
		page["nextPageToken"] = strconv.Itoa(to)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(page))
}

func (s *Server) geminiDownload(w http.ResponseWriter, r *http.Request, _ []byte) {
	_, id, _ := strings.Cut(r.URL.Path, "/v1beta/files/")
	name := "files/" + strings.TrimSuffix(id, ":download")
	if r.URL.Query().Get("alt") != "media" {
		geminiWire{}.writeError(w, http.StatusBadRequest, "fake gemini: a download without alt=media")
		return
	}
	data, ok := s.fileData(name)
	if !ok {
		geminiWire{}.writeError(w, http.StatusNotFound, fmt.Sprintf("File %s not found.", name))
		return
	}
	if s.resultsTrickle(w, r, "application/octet-stream") {
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

// fileData is the content of the live file name (files/…).
func (s *Server) fileData(name string) ([]byte, bool) {
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	f := store.find(name)
	if f == nil {
		return nil, false
	}
	return f.Data, true
}

// fileLive reports whether uri cites a live file.
func (s *Server) fileLive(uri string) bool {
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, f := range store.files {
		if f.URI == uri {
			return f.final && !f.Deleted
		}
	}
	return false
}

// addFile adds a file the fake makes itself (a batch's results) with
// the content data makes, unless it holds one of that name already.
func (s *Server) addFile(name, mime string, data func() []byte) {
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, f := range store.files {
		if f.Name == name {
			return
		}
	}
	store.files = append(store.files, &fakeFile{final: true, File: File{
		Name: name, URI: s.URL + "/v1beta/" + name, MIMEType: mime, Data: data(),
	}})
}
