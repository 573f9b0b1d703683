package mcpserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// BenchmarkInitializeFlood opens sessions that are never closed, past the
// cap: what a flood of initializes costs each.
func BenchmarkInitializeFlood(b *testing.B) {
	spec, _ := registry.Default.Lookup("calculate_sum")
	reg := toolset.New()
	reg.MustRegister(toolset.FromSpec(spec))
	opts := Options{Version: "bench", MaxSessions: 2000}
	opts.Runner.Jobs = 1
	opts.Runner.AWD = b.TempDir()
	s := New(reg, opts)
	srv := httptest.NewServer(s.Handler(""))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	hc := srv.Client()
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest("POST", srv.URL+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
