package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
)

// partData is what a Gemini part carries besides its content and must get
// back verbatim on the next turn: llm.Part.ProviderData.
type partData struct {
	// ThoughtSignature is echoed with the part it came on; Gemini 3 models
	// refuse a function call in the history without its signature.
	ThoughtSignature []byte `json:"thoughtSignature,omitempty"`
	// Thought marks a thought summary.
	Thought bool `json:"thought,omitempty"`
	// GeneratedID says the model gave the call no id and kesoku made one
	// up; it is not sent back, since the model never used it.
	GeneratedID bool `json:"generatedId,omitempty"`
}

func (d partData) encode() json.RawMessage {
	if d.ThoughtSignature == nil && !d.Thought && !d.GeneratedID {
		return nil
	}
	b, _ := json.Marshal(d)
	return b
}

func decodeData(raw json.RawMessage) (partData, error) {
	var d partData
	if len(raw) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("gemini: provider data %s: %w", raw, err)
	}
	return d, nil
}

// toContents translates the conversation. Function responses go back in
// one content per turn, in the order of the calls they answer, and a call
// whose id kesoku generated goes back without one, as the model sent it.
// Messages of one role in a row become one content.
func toContents(msgs []llm.Message) ([]*genai.Content, error) {
	generated := make(map[string]bool)
	var order []string // call ids of the last model turn, in order
	var out []*genai.Content
	for i, m := range msgs {
		role := genai.RoleUser
		if m.Role == message.RoleAssistant {
			role = genai.RoleModel
			order = order[:0]
		}
		c := &genai.Content{Role: role}
		// answers holds, for each part, the id of the call it answers ("" for
		// a part that is no function response), as kesoku knows it: the
		// response itself loses a generated id.
		var answers []string
		for j, p := range m.Parts {
			part, err := toPart(p, generated)
			if err != nil {
				return nil, fmt.Errorf("gemini: message %d part %d: %w", i+1, j+1, err)
			}
			if part == nil {
				continue
			}
			if p.ToolCall != nil {
				order = append(order, p.ToolCall.ID)
			}
			answer := ""
			if p.ToolResult != nil {
				answer = p.ToolResult.CallID
			}
			c.Parts = append(c.Parts, part)
			answers = append(answers, answer)
		}
		if len(c.Parts) == 0 {
			continue
		}
		sortResponses(c.Parts, answers, order)
		if n := len(out); n > 0 && out[n-1].Role == c.Role {
			// Contents of one role in a row (function responses and then a
			// prompt, after an interrupt or a resume) become one, so that
			// roles alternate.
			out[n-1].Parts = append(out[n-1].Parts, c.Parts...)
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// sortResponses puts the function responses among parts in the order of
// the calls (ids in order), keeping every other part where it is. answers
// holds the id of the call each part answers: ranked by it, a response to
// a call that came without an id keeps its place among the others, which
// is all Gemini has to match it by.
func sortResponses(parts []*genai.Part, answers, order []string) {
	rank := make(map[string]int, len(order))
	for i, id := range order {
		rank[id] = i
	}
	type response struct {
		part *genai.Part
		rank int
	}
	var slots []int
	var responses []response
	for i, p := range parts {
		if p.FunctionResponse == nil {
			continue
		}
		r, ok := rank[answers[i]]
		if !ok {
			r = len(order)
		}
		slots = append(slots, i)
		responses = append(responses, response{p, r})
	}
	// A stable insertion sort: a turn has a handful of calls.
	for i := 1; i < len(responses); i++ {
		for j := i; j > 0 && responses[j].rank < responses[j-1].rank; j-- {
			responses[j], responses[j-1] = responses[j-1], responses[j]
		}
	}
	for i, s := range slots {
		parts[s] = responses[i].part
	}
}

func toPart(p llm.Part, generated map[string]bool) (*genai.Part, error) {
	d, err := decodeData(p.ProviderData)
	if err != nil {
		return nil, err
	}
	switch {
	case p.ToolCall != nil:
		args, err := llm.DecodeArgs(p.ToolCall.Args)
		if err != nil {
			return nil, fmt.Errorf("tool call %s: arguments: %w", p.ToolCall.Name, err)
		}
		fc := &genai.FunctionCall{ID: p.ToolCall.ID, Name: p.ToolCall.Name, Args: args}
		if d.GeneratedID {
			generated[fc.ID] = true
			fc.ID = ""
		}
		return &genai.Part{FunctionCall: fc, ThoughtSignature: d.ThoughtSignature}, nil
	case p.ToolResult != nil:
		r := p.ToolResult
		var value any
		if len(bytes.TrimSpace(r.Content)) > 0 {
			if err := json.Unmarshal(r.Content, &value); err != nil {
				return nil, fmt.Errorf("tool result %s: %w", r.Name, err)
			}
		}
		key := "output"
		if r.IsError {
			key = "error"
		}
		// The response is keyed by the id where the model gave one, and
		// otherwise matched by its place among the responses.
		id := r.CallID
		if generated[id] {
			id = ""
		}
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: id, Name: r.Name, Response: map[string]any{key: value},
		}}, nil
	case p.Blob != nil:
		return blobPart(p.Blob)
	}
	if p.Text == "" {
		// A signature that came alone, with no text before it in its turn,
		// has nothing to ride on: a part without data is refused, and a
		// text part's signature is optional, unlike a call's.
		return nil, nil
	}
	return &genai.Part{Text: p.Text, Thought: d.Thought || p.Thought, ThoughtSignature: d.ThoughtSignature}, nil
}

// blobPart is a file: inline bytes, or a reference to a file Gemini holds
// (the Files API's URI, or a URL it can fetch).
func blobPart(b *llm.Blob) (*genai.Part, error) {
	mime := b.BareMIME()
	switch {
	case b.URI != "":
		return &genai.Part{FileData: &genai.FileData{FileURI: b.URI, MIMEType: mime}}, nil
	case len(b.Data) > 0:
		return &genai.Part{InlineData: &genai.Blob{Data: b.Data, MIMEType: mime}}, nil
	}
	return nil, fmt.Errorf("%s %s: no data and no URI", b.Kind, b.Name)
}

// accumulator builds one model turn from the chunks of a stream, or from
// the one response of a plain request.
type accumulator struct {
	onText func(string)
	parts  []llm.Part
	finish genai.FinishReason
	// block is why the prompt was blocked, when it was.
	block string
	// usage is the last usage a chunk reported: each reports the whole
	// so far.
	usage *genai.GenerateContentResponseUsageMetadata
}

func (a *accumulator) add(chunk *genai.GenerateContentResponse) error {
	if chunk == nil || (chunk.Candidates == nil && chunk.PromptFeedback == nil && chunk.UsageMetadata == nil && chunk.ResponseID == "") {
		// A body or an event of null: genai makes an empty response of it.
		return &llm.MalformedError{Provider: Name, Problem: "a response that holds nothing (null)"}
	}
	if chunk.UsageMetadata != nil {
		a.usage = chunk.UsageMetadata
	}
	if pf := chunk.PromptFeedback; pf != nil && pf.BlockReason != "" {
		a.block = string(pf.BlockReason)
		if pf.BlockReasonMessage != "" {
			a.block += ": " + pf.BlockReasonMessage
		}
	}
	if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return nil
	}
	cand := chunk.Candidates[0]
	if cand.FinishReason != "" {
		a.finish = cand.FinishReason
	}
	if cand.Content == nil {
		return nil
	}
	for _, gp := range cand.Content.Parts {
		if gp == nil {
			continue
		}
		a.addPart(gp)
	}
	return nil
}

func (a *accumulator) addPart(gp *genai.Part) {
	d := partData{ThoughtSignature: gp.ThoughtSignature}
	switch {
	case gp.FunctionCall != nil:
		fc := gp.FunctionCall
		id := fc.ID
		if id == "" {
			id, d.GeneratedID = newCallID(), true
		}
		args, err := json.Marshal(fc.Args)
		if err != nil || fc.Args == nil {
			args = []byte("{}")
		}
		a.parts = append(a.parts, llm.Part{
			ToolCall:     &llm.ToolCall{ID: id, Name: fc.Name, Args: args},
			ProviderData: d.encode(),
		})
	case gp.Thought:
		d.Thought = true
		a.parts = append(a.parts, llm.Part{Text: gp.Text, Thought: true, ProviderData: d.encode()})
	case gp.Text != "" || gp.ThoughtSignature != nil:
		if gp.Text != "" && a.onText != nil {
			a.onText(gp.Text)
		}
		// A stream cuts one text into many chunks; they are one part again,
		// and a signature that comes alone in a last empty chunk belongs to
		// the text before it.
		if n := len(a.parts); n > 0 {
			last := &a.parts[n-1]
			if last.ToolCall == nil && !last.Thought && last.Blob == nil && last.ProviderData == nil {
				last.Text += gp.Text
				last.ProviderData = d.encode()
				return
			}
		}
		a.parts = append(a.parts, llm.Part{Text: gp.Text, ProviderData: d.encode()})
	}
}

func (a *accumulator) response() (*llm.Response, error) {
	if len(a.parts) == 0 && a.block != "" {
		return nil, fmt.Errorf("gemini: the prompt was blocked: %s", a.block)
	}
	resp := &llm.Response{
		Message:    llm.Message{Role: message.RoleAssistant, Parts: a.parts},
		StopReason: string(a.finish),
		Usage:      usageOf(a.usage),
	}
	switch a.finish {
	case genai.FinishReasonStop:
	case "":
		// A stream that closed without a finish reason may have been cut
		// anywhere.
		resp.Cut = llm.CutNoStopReason
	default:
		// MAX_TOKENS, SAFETY, RECITATION, MALFORMED_FUNCTION_CALL…: a
		// turn the model did not finish.
		resp.Cut = string(a.finish)
	}
	return resp, nil
}

// usageOf is Gemini's usage as kesoku counts it: the prompt's tokens
// (the cached ones among them, and those of tool results Gemini made
// itself) in, the answer's and the model's thoughts (billed alike) out.
func usageOf(u *genai.GenerateContentResponseUsageMetadata) *message.Usage {
	if u == nil {
		return nil
	}
	return &message.Usage{
		InputTokens:     int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
		OutputTokens:    int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
		CacheReadTokens: int64(u.CachedContentTokenCount),
	}
}

// fromResponse is the model's turn in one whole response: a batch's
// result, which comes unstreamed.
func fromResponse(resp *genai.GenerateContentResponse) (*llm.Response, error) {
	a := &accumulator{}
	if err := a.add(resp); err != nil {
		return nil, err
	}
	return a.response()
}

// newCallID makes an id for a call the model sent without one, so that the
// call's records can point at each other.
func newCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
