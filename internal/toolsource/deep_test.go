package toolsource

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

// nested is a JSON object that nests levels deep.
func nested(levels int) string {
	return strings.Repeat(`{"a":`, levels-1) + "{}" + strings.Repeat("}", levels-1)
}

// TestStdioConnDeepAnswer: an answer nested deeper than the SDK reads is
// an error of its own call at once, found by its id wherever the id is
// (servers written in TypeScript put it after the result); a deep line
// that answers no call is skipped; the connection goes on.
func TestStdioConnDeepAnswer(t *testing.T) {
	t.Parallel()
	deep := nested(1500)
	in := `{"jsonrpc":"2.0","id":4,"result":` + deep + "}\n" +
		`{"result":` + deep + `,"jsonrpc":"2.0","id":"five"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":` + deep + "}\n" +
		`{"jsonrpc":"2.0","id":9,"result":` + deep + "}\n" +
		`{"jsonrpc":"2.0","id":6,"result":{}}` + "\n"
	var skipped []string
	c := newStdioConn(io.NopCloser(strings.NewReader(in)), nopWriteCloser{io.Discard}, 1<<20, &toolList{}, func(l string) { skipped = append(skipped, l[:20]) })
	c.calls[mustID(t, 4.0)] = "tools/call"
	c.calls[mustID(t, "five")] = "tools/call"
	c.calls[mustID(t, 6.0)] = "tools/call"
	c.start()
	var got []string
	for {
		msg, err := c.Read(context.Background())
		if err != nil {
			break
		}
		if m, ok := msg.(*jsonrpc.Response); ok {
			if m.Error != nil {
				got = append(got, fmt.Sprintf("error %v: %v", m.ID.Raw(), m.Error))
			} else {
				got = append(got, fmt.Sprintf("result %v", m.ID.Raw()))
			}
		}
	}
	const why = "the server sent an answer nested 1501 levels deep, more than the 1000 kesoku reads: kesoku did not read it"
	want := []string{"error 4: " + why, "error five: " + why, "result 6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if len(skipped) != 2 {
		t.Errorf("skipped %q, want the notification and the answer to no call", skipped)
	}
}

// TestServerDeepAnswer: a result nested deeper than kesoku reads fails
// its own call at once, over standard input and output as over HTTP, and
// the server's next call succeeds.
func TestServerDeepAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcptest.HTTPHandler("s3cret"))
	t.Cleanup(srv.Close)
	for name, set := range map[string]*Set{
		"fake": fakeServer(t, context.Background(), Options{}),
		"web":  httpServer(t, Options{}, srv.URL+"/mcp"),
	} {
		if v, err := call(t, set, name+"__nest", map[string]any{"levels": 3}); err != nil {
			t.Errorf("%s: a shallow result: %v", name, err)
		} else if diff := cmp.Diff(map[string]any{"a": map[string]any{"a": map[string]any{"a": 1.0}}}, v); diff != "" {
			t.Errorf("%s: a shallow result mismatch (-want +got):\n%s", name, diff)
		}
		_, err := call(t, set, name+"__nest", map[string]any{"levels": 1500})
		if want := "more than the 1000 kesoku reads"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: a deep result: %v, want %q", name, err, want)
		}
		if v, err := call(t, set, name+"__echo", map[string]any{"text": "after"}); err != nil || v != "after" {
			t.Errorf("%s: the call after: %v, %v", name, v, err)
		}
	}
}
