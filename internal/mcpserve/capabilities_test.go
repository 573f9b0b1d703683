package mcpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// kesoku declares what it serves and serves what it declares: tools, and
// nothing else. The methods of the capabilities it does not declare are
// answered as methods it does not have, in both eras (over HTTP, 404 in
// the stateless one), and initialize and server/discover name tools alone.
func TestHTTPServesWhatItDeclares(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, nil)
	undeclared := []struct {
		method, name string // name: the Mcp-Name of a modern request
		params       map[string]any
	}{
		{"prompts/list", "", map[string]any{}},
		{"prompts/get", "p", map[string]any{"name": "p"}},
		{"resources/list", "", map[string]any{}},
		{"resources/templates/list", "", map[string]any{}},
		{"resources/read", "file:///etc/hostname", map[string]any{"uri": "file:///etc/hostname"}},
		{"logging/setLevel", "", map[string]any{"level": "info"}},
		{"completion/complete", "", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "p"}, "argument": map[string]any{"name": "a", "value": "b"}}},
	}
	for _, version := range []string{legacy, modern} {
		c := newRawClient(t, h.url, version)
		var caps json.RawMessage
		if version == legacy {
			resp, err := c.initialize(context.Background())
			if err != nil || resp.result == nil {
				t.Fatalf("initialize: %+v, %v", resp, err)
			}
			caps = capabilitiesOf(t, resp.result)
		} else {
			resp, err := c.send(context.Background(), "server/discover", "", map[string]any{})
			if err != nil || resp.result == nil {
				t.Fatalf("server/discover: %+v, %v", resp, err)
			}
			caps = capabilitiesOf(t, resp.result)
		}
		if string(caps) != `{"tools":{}}` {
			t.Errorf("%s: capabilities %s, want tools alone", version, caps)
		}
		for _, u := range undeclared {
			resp, err := c.send(context.Background(), u.method, u.name, u.params)
			if err != nil {
				t.Fatalf("%s %s: %v", version, u.method, err)
			}
			if resp.err == nil || resp.err.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s %s: %s, want method not found", version, u.method, resp.body)
			}
			if version == modern && resp.status != http.StatusNotFound {
				t.Errorf("%s %s: HTTP %d, want 404", version, u.method, resp.status)
			}
		}
	}
}

// capabilitiesOf is the capabilities of an initialize or server/discover
// result, compacted.
func capabilitiesOf(t *testing.T, result json.RawMessage) json.RawMessage {
	t.Helper()
	var r struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(r.Capabilities, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}
