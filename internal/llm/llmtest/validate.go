package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The fakes refuse what the real APIs refuse, with the status and the
// message the real API gives, so that a test against a fake fails where a
// session against the real provider would wedge. Each rule below was seen
// from the real API; a request the fake accepts is not proof
// that the real API does, but a request the real API refuses for one of
// these reasons never passes a test.

// The request size limits of the real APIs.
const (
	// ClaudeMaxRequest is the Messages API's limit on a request body: a
	// larger one gets 413 request_too_large.
	ClaudeMaxRequest = 32_000_000
	// GeminiMaxRequest is the Gemini API's limit on a request body with
	// inline data: a larger one gets 400 INVALID_ARGUMENT.
	GeminiMaxRequest = 20 << 20
	// ClaudeMaxPDFPages is how many pages of PDF one Claude request takes.
	ClaudeMaxPDFPages = 100
)

// refusal is a request the real API refuses: the status and message.
type refusal struct {
	status int
	msg    string
}

func refuse(status int, format string, args ...any) *refusal {
	return &refusal{status: status, msg: fmt.Sprintf(format, args...)}
}

// toolUseID is the pattern Claude holds tool_use ids to.
var toolUseID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

func (claudeWire) check(body []byte, limit int) *refusal {
	if limit <= 0 {
		limit = ClaudeMaxRequest
	}
	return checkClaude(body, limit)
}

func (geminiWire) check(body []byte, limit int) *refusal {
	if limit <= 0 {
		limit = GeminiMaxRequest
	}
	return checkGemini(body, limit)
}

// checkClaude refuses a Messages request the real API refuses. limit is
// the largest body accepted.
func checkClaude(body []byte, limit int) *refusal {
	if len(body) > limit {
		return refuse(http.StatusRequestEntityTooLarge, "Request exceeds the maximum allowed number of bytes.")
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return refuse(http.StatusBadRequest, "invalid request body: %v", err)
	}
	if len(req.Messages) == 0 {
		return refuse(http.StatusBadRequest, "messages: at least one message is required")
	}
	breakpoints := 0
	for _, b := range cacheBlocks(body) {
		if b.breakpoint {
			breakpoints++
		}
	}
	if breakpoints > ClaudeMaxBreakpoints {
		return refuse(http.StatusBadRequest, "A maximum of %d blocks with cache_control may be provided. Found %d.", ClaudeMaxBreakpoints, breakpoints)
	}
	for i, tool := range req.Tools {
		if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`).MatchString(tool.Name) {
			return refuse(http.StatusBadRequest, "tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
		}
	}
	seen := map[string]bool{}
	// open holds the tool_use ids of the last assistant message that the
	// next user message must answer.
	var open []string
	pages := 0
	for i, m := range req.Messages {
		blocks, r := claudeBlocks(m.Content, i)
		if r != nil {
			return r
		}
		if len(blocks) == 0 && i != len(req.Messages)-1 {
			return refuse(http.StatusBadRequest, "messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		if len(open) > 0 {
			answered := map[string]bool{}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					answered[b.ToolUseID] = true
				}
			}
			var missing []string
			for _, id := range open {
				if !answered[id] {
					missing = append(missing, id)
				}
			}
			if m.Role != "user" || len(missing) > 0 {
				if m.Role != "user" {
					missing = open
				}
				return refuse(http.StatusBadRequest, "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(missing, ", "))
			}
		}
		var prev map[string]bool
		if len(open) > 0 {
			prev = map[string]bool{}
			for _, id := range open {
				prev[id] = true
			}
		}
		open = nil
		for j, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == "" {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d.text: text content blocks must be non-empty", i, j)
				}
				if strings.TrimSpace(b.Text) == "" {
					return refuse(http.StatusBadRequest, "messages: text content blocks must contain non-whitespace text")
				}
			case "tool_use":
				if m.Role != "assistant" {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d: `tool_use` blocks can only be in `assistant` messages", i, j)
				}
				if !toolUseID.MatchString(b.ID) {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
				}
				if seen[b.ID] {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				if in := bytes.TrimSpace(b.Input); len(in) == 0 || in[0] != '{' {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
				}
				seen[b.ID] = true
				open = append(open, b.ID)
			case "tool_result":
				if m.Role != "user" {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d: `tool_result` blocks can only be in `user` messages", i, j)
				}
				if !prev[b.ToolUseID] {
					return refuse(http.StatusBadRequest, "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				for k, c := range b.Content {
					if c.Type == "text" && strings.TrimSpace(c.Text) == "" {
						return refuse(http.StatusBadRequest, "messages.%d.content.%d.content.%d.text: text content blocks must contain non-whitespace text", i, j, k)
					}
				}
			case "document":
				if b.Source.Type == "base64" && b.Source.MediaType == "application/pdf" {
					data, err := base64.StdEncoding.DecodeString(b.Source.Data)
					if err != nil {
						return refuse(http.StatusBadRequest, "messages.%d.content.%d.document.source.base64.data: invalid base64 data", i, j)
					}
					pages += countPDFPages(data)
				}
			}
		}
	}
	if len(open) > 0 {
		// The request ends with calls nobody answered: the model cannot go on.
		return refuse(http.StatusBadRequest, "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", len(req.Messages)-1, strings.Join(open, ", "))
	}
	if pages > ClaudeMaxPDFPages {
		return refuse(http.StatusBadRequest, "A maximum of %d PDF pages may be provided.", ClaudeMaxPDFPages)
	}
	return nil
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	// Content is a tool_result's content, when given as blocks.
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"-"`
	RawContent json.RawMessage `json:"content"`
	Source     struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// claudeBlocks decodes a message's content: a string is one text block.
func claudeBlocks(raw json.RawMessage, i int) ([]claudeBlock, *refusal) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return []claudeBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, refuse(http.StatusBadRequest, "messages.%d.content: %v", i, err)
	}
	for j := range blocks {
		b := &blocks[j]
		if b.Type != "tool_result" {
			continue
		}
		if c := bytes.TrimSpace(b.RawContent); len(c) > 0 && c[0] == '[' {
			json.Unmarshal(c, &b.Content)
		}
	}
	return blocks, nil
}

// pdfPage matches a page object of a PDF (and not the /Pages nodes of
// its page tree): what the fake counts, as an uncompressed test PDF holds
// them.
var pdfPage = regexp.MustCompile(`/Type\s*/Page\b`)

func countPDFPages(data []byte) int { return len(pdfPage.FindAll(data, -1)) }

// checkGemini refuses a generateContent request the real API refuses.
// limit is the largest body accepted.
func checkGemini(body []byte, limit int) *refusal {
	if len(body) > limit {
		return refuse(http.StatusBadRequest, "Request payload size exceeds the limit: %d bytes.", limit)
	}
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return refuse(http.StatusBadRequest, "Invalid JSON payload received. %v", err)
	}
	if len(req.Contents) == 0 {
		return refuse(http.StatusBadRequest, "* GenerateContentRequest.contents: contents is not specified\n")
	}
	// calls is the number of function calls of the last model turn that
	// still wait for their responses.
	calls := 0
	prevKind := "user"
	for i, c := range req.Contents {
		if len(c.Parts) == 0 {
			return refuse(http.StatusBadRequest, "* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.\n", i)
		}
		var nCalls, nResponses, nOther int
		for j, raw := range c.Parts {
			var p map[string]json.RawMessage
			if err := json.Unmarshal(raw, &p); err != nil {
				return refuse(http.StatusBadRequest, "Invalid JSON payload received. contents[%d].parts[%d]: %v", i, j, err)
			}
			data := 0
			for _, k := range []string{"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"} {
				if _, ok := p[k]; ok {
					data++
				}
			}
			if data != 1 {
				return refuse(http.StatusBadRequest, "* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field\n", i, j)
			}
			switch {
			case p["functionCall"] != nil:
				nCalls++
				var fc struct {
					Args json.RawMessage `json:"args"`
				}
				json.Unmarshal(p["functionCall"], &fc)
				if a := bytes.TrimSpace(fc.Args); len(a) > 0 && a[0] != '{' {
					return refuse(http.StatusBadRequest, "Invalid JSON payload received. Unknown name \"args\" at 'contents[%d].parts[%d].function_call': Proto field is not repeating, cannot start list.", i, j)
				}
			case p["functionResponse"] != nil:
				nResponses++
			default:
				nOther++
			}
		}
		kind := "user"
		switch {
		case c.Role == "model" && nCalls > 0:
			kind = "call"
		case c.Role == "model":
			kind = "model"
		case nResponses > 0:
			kind = "response"
		}
		if kind == "call" && prevKind != "user" && prevKind != "response" {
			return refuse(http.StatusBadRequest, "Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
		}
		if nResponses > 0 {
			if prevKind != "call" {
				return refuse(http.StatusBadRequest, "Please ensure that function response turn comes immediately after a function call turn.")
			}
			if nResponses != calls {
				return refuse(http.StatusBadRequest, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
			}
		} else if prevKind == "call" {
			return refuse(http.StatusBadRequest, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
		}
		calls = nCalls
		prevKind = kind
	}
	if prevKind == "call" {
		return refuse(http.StatusBadRequest, "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
	}
	return nil
}

func (openAIWire) check(body []byte, limit int) *refusal {
	if limit > 0 && len(body) > limit {
		return refuse(http.StatusRequestEntityTooLarge, "Maximum content size limit exceeded. The content size surpasses the allowed limit of %d bytes.", limit)
	}
	return checkOpenAI(body)
}

// openAIToolName is the pattern OpenAI holds function names to.
var openAIToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// openAIReasoning matches the names of OpenAI's reasoning models, which
// refuse max_tokens.
var openAIReasoning = regexp.MustCompile(`^(o[1-9]|gpt-5)`)

// OpenAIMaxDescription is the longest function description Chat
// Completions takes.
const OpenAIMaxDescription = 1024

// OpenAIMaxTools is the most functions one Chat Completions request may
// offer.
const OpenAIMaxTools = 128

// OpenAIMaxCallID is the longest tool call id Chat Completions takes.
const OpenAIMaxCallID = 40

// checkOpenAI refuses a Chat Completions request the real API refuses,
// in its words. Compatible servers are laxer; what OpenAI refuses, kesoku
// never sends any of them.
func checkOpenAI(body []byte) *refusal {
	var req struct {
		Messages []struct {
			Role       string           `json:"role"`
			Content    *json.RawMessage `json:"content"`
			ToolCallID *string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		} `json:"tools"`
		Model         string          `json:"model"`
		MaxTokens     json.RawMessage `json:"max_tokens"`
		Stream        bool            `json:"stream"`
		StreamOptions json.RawMessage `json:"stream_options"`
		ToolChoice    json.RawMessage `json:"tool_choice"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return refuse(http.StatusBadRequest, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)")
	}
	if len(req.Messages) == 0 {
		return refuse(http.StatusBadRequest, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	if len(req.StreamOptions) > 0 && string(req.StreamOptions) != "null" && !req.Stream {
		return refuse(http.StatusBadRequest, "The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	if len(req.MaxTokens) > 0 && string(req.MaxTokens) != "null" && openAIReasoning.MatchString(req.Model) {
		return refuse(http.StatusBadRequest, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	}
	if len(req.ToolChoice) > 0 && len(req.Tools) == 0 {
		return refuse(http.StatusBadRequest, "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")
	}
	if len(req.Tools) > OpenAIMaxTools {
		return refuse(http.StatusBadRequest, "Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", OpenAIMaxTools, len(req.Tools))
	}
	for i, t := range req.Tools {
		switch name := t.Function.Name; {
		case len(name) > 64:
			return refuse(http.StatusBadRequest, "Invalid 'tools[%d].function.name': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", i, len(name))
		case !openAIToolName.MatchString(name):
			return refuse(http.StatusBadRequest, "Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i)
		}
		if n := utf8.RuneCountInString(t.Function.Description); n > OpenAIMaxDescription {
			return refuse(http.StatusBadRequest, "Invalid 'tools[%d].function.description': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", i, OpenAIMaxDescription, n)
		}
	}
	// open holds the ids of the last assistant message's calls that no
	// tool message has answered yet; answerable, all of its ids.
	var open []string
	answerable := map[string]bool{}
	// answered is where each tool_call_id was answered.
	answered := map[string]int{}
	for i, m := range req.Messages {
		if len(open) > 0 && m.Role != "tool" {
			return refuse(http.StatusBadRequest, "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
		}
		switch m.Role {
		case "system", "developer", "user":
			if m.Content == nil {
				return refuse(http.StatusBadRequest, "Missing required parameter: 'messages[%d].content'.", i)
			}
			if m.Role != "user" {
				if r := checkOpenAIParts(*m.Content, i, m.Role); r != nil {
					return r
				}
			}
			answerable = map[string]bool{}
		case "assistant":
			if (m.Content == nil || string(*m.Content) == "null") && len(m.ToolCalls) == 0 {
				return refuse(http.StatusBadRequest, "Invalid value for 'content': expected a string, got null.")
			}
			if m.Content != nil {
				if r := checkOpenAIParts(*m.Content, i, m.Role); r != nil {
					return r
				}
			}
			answerable = map[string]bool{}
			for j, c := range m.ToolCalls {
				switch {
				case c.ID == "":
					return refuse(http.StatusBadRequest, "Missing required parameter: 'messages[%d].tool_calls[%d].id'.", i, j)
				case len(c.ID) > OpenAIMaxCallID:
					return refuse(http.StatusBadRequest, "Invalid 'messages[%d].tool_calls[%d].id': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", i, j, OpenAIMaxCallID, len(c.ID))
				case len(c.Function.Arguments) == 0 || c.Function.Arguments[0] != '"':
					return refuse(http.StatusBadRequest, "Invalid type for 'messages[%d].tool_calls[%d].function.arguments': expected a string, but got %s instead.", i, j, jsonKind(c.Function.Arguments))
				}
				answerable[c.ID] = true
				open = append(open, c.ID)
			}
		case "tool":
			if m.ToolCallID == nil {
				return refuse(http.StatusBadRequest, "Missing required parameter: 'messages[%d].tool_call_id'.", i)
			}
			if !answerable[*m.ToolCallID] {
				return refuse(http.StatusBadRequest, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			if j, ok := answered[*m.ToolCallID]; ok {
				return refuse(http.StatusBadRequest, "Invalid parameter: Duplicate value for 'tool_call_id' of '%s', in messages[%d] and messages[%d].", *m.ToolCallID, j, i)
			}
			answered[*m.ToolCallID] = i
			if m.Content == nil {
				return refuse(http.StatusBadRequest, "Missing required parameter: 'messages[%d].content'.", i)
			}
			if r := checkOpenAIParts(*m.Content, i, m.Role); r != nil {
				return r
			}
			open = slices.DeleteFunc(open, func(id string) bool { return id == *m.ToolCallID })
		default:
			return refuse(http.StatusBadRequest, "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role)
		}
	}
	if len(open) > 0 {
		return refuse(http.StatusBadRequest, "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(open, ", "))
	}
	return nil
}

// checkOpenAIParts refuses content parts a message of role cannot hold:
// images and files go in user messages only.
func checkOpenAIParts(content json.RawMessage, i int, role string) *refusal {
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return nil // a string
	}
	for _, p := range parts {
		switch p.Type {
		case "image_url":
			return refuse(http.StatusBadRequest, "Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", role)
		case "file", "input_audio":
			return refuse(http.StatusBadRequest, "Invalid 'messages[%d]': content parts of type '%s' are only allowed for messages with role 'user'.", i, p.Type)
		}
	}
	return nil
}

// jsonKind names the kind of a JSON value, as OpenAI's errors do.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
