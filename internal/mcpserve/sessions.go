package mcpserve

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionCap bounds the live sessions of clients before the stateless
// revision, which cost memory for as long as they last: a new one past
// the bound takes the place of the one idle the longest (its client, if
// it comes back, is told that its session is gone and may start another),
// or is refused when every one is busy (a request in flight).
type sessionCap struct {
	max int

	mu    sync.Mutex
	clock uint64 // counts requests, to say which session was used last
	// opening counts the sessions being opened, not yet noted.
	opening int
	// use are the sessions opened, by id. A session that ended on its
	// own (it expired) stays until it is the one idle the longest, and
	// closing it again costs nothing: no list of the live ones is taken
	// for each new one.
	use map[string]*sessionUse
}

// sessionUse is one session and how it is being used: its requests in
// flight, and when its last one ended.
type sessionUse struct {
	ss   *mcp.ServerSession
	busy int
	last uint64
}

func newSessionCap(max int) *sessionCap {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &sessionCap{max: max, use: make(map[string]*sessionUse)}
}

// sessionIDHeader is the header that names a client's session.
const sessionIDHeader = "Mcp-Session-Id"

// note is a receiving middleware that notes each session as it is opened
// (its initialize), with the SDK's handle on it.
func (c *sessionCap) note(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
				c.mu.Lock()
				if c.use[ss.ID()] == nil {
					c.clock++
					c.use[ss.ID()] = &sessionUse{ss: ss, last: c.clock}
				}
				c.mu.Unlock()
			}
		}
		return next(ctx, method, req)
	}
}

// bound lets next open a new session only when there is room for it.
func (c *sessionCap) bound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionIDHeader)
		switch {
		case id != "" && r.Method == http.MethodPost:
			// A POST in flight makes its session busy, as the SDK's idle
			// timeout counts it; a stream of notifications (GET) does not.
			c.mu.Lock()
			u := c.use[id]
			if u != nil {
				u.busy++
			}
			c.mu.Unlock()
			defer func() {
				if u != nil {
					c.mu.Lock()
					u.busy--
					c.clock++
					u.last = c.clock
					c.mu.Unlock()
				}
			}()
		case id != "" && r.Method == http.MethodDelete:
			defer func() {
				c.mu.Lock()
				delete(c.use, id)
				c.mu.Unlock()
			}()
		case id == "" && r.Method == http.MethodPost:
			// A request without a session opens one.
			if !c.admit() {
				http.Error(w, fmt.Sprintf("kesoku serves at most %d sessions at once (--max-sessions), and every one is busy: try again later, or speak MCP 2026-07-28, which needs no session", c.max), http.StatusServiceUnavailable)
				return
			}
			defer func() {
				c.mu.Lock()
				c.opening--
				c.mu.Unlock()
			}()
		}
		next.ServeHTTP(w, r)
	})
}

// admit makes room for a new session, closing the one idle the longest
// when there are as many as the bound. It reports false when there is no
// room and none is idle.
func (c *sessionCap) admit() bool {
	c.mu.Lock()
	var oldest *sessionUse
	var oldestID string
	if len(c.use)+c.opening >= c.max {
		for id, u := range c.use {
			if u.busy == 0 && (oldest == nil || u.last < oldest.last) {
				oldest, oldestID = u, id
			}
		}
		if oldest == nil {
			c.mu.Unlock()
			return false
		}
		delete(c.use, oldestID)
	}
	c.opening++
	c.mu.Unlock()
	if oldest != nil {
		oldest.ss.Close()
	}
	return true
}
