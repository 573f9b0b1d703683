package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The protocol versions the tests speak: the stateless revision, and the
// last one with sessions.
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// rawClient speaks JSON-RPC over HTTP by hand, as any client of either
// era may: a legacy one initializes and sends its session id, a modern
// one sends the protocol version and its capabilities in every request's
// _meta and the headers that say what it asks (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name).
type rawClient struct {
	t       *testing.T
	url     string
	version string
	hc      *http.Client
	// session is the Mcp-Session-Id of a legacy client, once initialized.
	session string
	ids     atomic.Int64
}

func newRawClient(t *testing.T, url, version string) *rawClient {
	return &rawClient{t: t, url: url, version: version, hc: &http.Client{Transport: &http.Transport{}}}
}

// rawResponse is what came back for one request: the HTTP status and,
// for a call, its JSON-RPC result or error.
type rawResponse struct {
	status int
	header http.Header
	result json.RawMessage
	err    *jsonrpc.Error
	body   string
}

// initialize opens a legacy client's session.
func (c *rawClient) initialize(ctx context.Context) (*rawResponse, error) {
	resp, err := c.send(ctx, "initialize", "", map[string]any{
		"protocolVersion": c.version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "1"},
	})
	if err == nil && resp.status == http.StatusOK {
		c.session = resp.header.Get("Mcp-Session-Id")
	}
	return resp, err
}

// mustInitialize opens the session, failing the test if it cannot.
func (c *rawClient) mustInitialize() {
	c.t.Helper()
	resp, err := c.initialize(context.Background())
	if err != nil || resp.status != http.StatusOK || c.session == "" {
		c.t.Fatalf("initialize: %+v, %v", resp, err)
	}
}

// callTool calls the tool name with args.
func (c *rawClient) callTool(ctx context.Context, name string, args any) (*rawResponse, error) {
	return c.send(ctx, "tools/call", name, map[string]any{"name": name, "arguments": args})
}

// send sends one request (or, with a method starting "notifications/",
// one notification) and reads its answer.
func (c *rawClient) send(ctx context.Context, method, name string, params map[string]any) (*rawResponse, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	notification := strings.HasPrefix(method, "notifications/")
	if !notification {
		msg["id"] = c.ids.Add(1)
	}
	if c.version >= modern && !notification {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    c.version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
		}
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version >= modern {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readRaw(resp)
}

// readRaw reads the answer to one request: a JSON body, or a stream of
// events whose last message is the response.
func readRaw(resp *http.Response) (*rawResponse, error) {
	r := &rawResponse{status: resp.StatusCode, header: resp.Header}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return r, err
	}
	r.body = string(data)
	var payload string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(r.body))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				payload = d
			}
		}
	} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		payload = r.body
	}
	if payload == "" {
		return r, nil
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal([]byte(payload), &msg); err != nil {
		return r, fmt.Errorf("answer %q: %w", payload, err)
	}
	r.result, r.err = msg.Result, msg.Error
	return r, nil
}

// toolResult is the text and isError of a tools/call result.
func (r *rawResponse) toolResult(t *testing.T) (string, bool) {
	t.Helper()
	if r.err != nil || r.result == nil {
		t.Fatalf("no result: status %d, error %v, body %q", r.status, r.err, r.body)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(r.result, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("result %s: %v", r.result, err)
	}
	return res.Content[0].Text, res.IsError
}
