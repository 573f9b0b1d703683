package toolsource

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/origin"
)

// httpClient is the one place where the HTTP client of a server reached
// over HTTP is built, and what it does to every request and answer:
//
//   - the entry's headers go to the server's own origin alone (its
//     scheme, host and port), never to another host: a redirect to
//     another origin is refused (Go's client would strip Authorization
//     there, but a transport that adds the headers to every request would
//     undo that, and the other configured headers are secrets too);
//   - every answer is read to a bound (max): a JSON body, each event of a
//     stream. An answer too large is not read: the call it answers gets
//     an error saying so, and the connection goes on;
//   - the answers to tools/list are read by toolList, so that one tool
//     the SDK cannot read loses only itself.
//
// OAuth (mcpauth) rides on this client: the SDK's transport sets the
// token on each request to the endpoint, and the redirect rule above
// keeps it there.
func (s *server) httpClient(endpoint *url.URL, header http.Header) *http.Client {
	home := origin.Of(endpoint)
	var rt http.RoundTripper = http.DefaultTransport
	rt = &answerTransport{base: rt, max: s.set.maxMessage, list: &s.list, note: s.set.note, where: s.decl.where()}
	rt = &headerTransport{header: header, origin: home, base: rt}
	return &http.Client{
		Transport: rt,
		CheckRedirect: origin.Redirects(home, func(to *url.URL) error {
			return &redirectError{from: home, to: to.Redacted()}
		}),
	}
}

// redirectError is a redirect to another origin, refused.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server redirected to %s, another origin than %s: refused, so that the headers of its entry go to its own origin alone", e.to, origin.Show(e.from))
}

// headerTransport adds the headers of a server's entry to each request to
// the server's origin.
type headerTransport struct {
	header http.Header
	origin string
	base   http.RoundTripper
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.header) == 0 || origin.Of(r.URL) != t.origin {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// callState is what the transports learn of one call, found through its
// context: whether its answer was too large to read.
type callState struct{ tooLarge atomic.Bool }

type callStateKey struct{}

func withCallState(ctx context.Context) (context.Context, *callState) {
	st := &callState{}
	return context.WithValue(ctx, callStateKey{}, st), st
}

func markTooLarge(ctx context.Context) {
	if st, ok := ctx.Value(callStateKey{}).(*callState); ok {
		st.tooLarge.Store(true)
	}
}

// answerTransport reads the answers of a server to a bound (see
// httpClient).
type answerTransport struct {
	base  http.RoundTripper
	max   int
	list  *toolList
	note  func(string)
	where string
}

func (t *answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	call := sentCall(req)
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		resp.Body = &eventStream{r: bufio.NewReaderSize(resp.Body, 64<<10), c: resp.Body, t: t, call: call, ctx: req.Context()}
		return resp, nil
	}
	body, over, err := readUpTo(resp.Body, resp.ContentLength, t.max)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if over {
		markTooLarge(req.Context())
		if !call.ID.IsValid() {
			return nil, fmt.Errorf("the server sent an answer of more than %s", sizeText(int64(t.max)))
		}
		// The call's answer is an error; the connection goes on.
		body = t.tooLarge(call.ID)
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Header.Set("Content-Type", "application/json")
	} else if ct == "application/json" {
		if body = t.readable(body, call); body == nil {
			return nil, fmt.Errorf("the server sent an answer nested more than the %d levels kesoku reads", maxMessageDepth)
		}
	}
	resp.Header.Del("Content-Length")
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// tooLarge is the answer kesoku gives the SDK for the call id, whose own
// answer was not read.
func (t *answerTransport) tooLarge(id jsonrpc.ID) []byte {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("the server sent an answer of more than %s (a result too large to take): kesoku did not read it", sizeText(int64(t.max))),
	}})
	return b
}

// readable is msg, a message on the answer to call (zero for a stream
// of no call), as the SDK can read it: a tools/list answer read by
// toolList; an answer nested deeper than the SDK reads made an error of
// the call it answers, which the SDK would otherwise take for a broken
// connection, and lose every call of the server with it. nil for a
// message too deep that is no answer: it is left out.
func (t *answerTransport) readable(msg []byte, call *jsonrpc.Request) []byte {
	if call.Method == methodListTools {
		msg = t.listAnswer(msg, call.ID)
	}
	d := depth(msg)
	if d <= maxMessageDepth {
		return msg
	}
	// The id it names: on a stream of no call (the GET stream of the
	// older SSE transport carries every answer), the SDK finds the call.
	if id, ok := answerID(msg); ok {
		b, _ := jsonrpc.EncodeMessage(unreadAnswer(id, d, nil))
		return b
	}
	t.note(fmt.Sprintf("%s: a message nested %d levels deep, more than the %d kesoku reads, was left out", t.where, d, maxMessageDepth))
	return nil
}

// listAnswer is the answer to the tools/list id, its tools read by
// toolList.
func (t *answerTransport) listAnswer(msg []byte, id jsonrpc.ID) []byte {
	isList := func(got jsonrpc.ID) bool { return got == id }
	var resp *jsonrpc.Response
	if m, err := jsonrpc.DecodeMessage(msg); err == nil {
		if r, ok := m.(*jsonrpc.Response); ok && r.ID == id && r.Error == nil {
			r.Result = t.list.result(r.Result)
			resp = r
		}
	} else if depth(msg) > maxMessageDepth {
		resp, _ = t.list.rescue(msg, isList)
	}
	if resp == nil {
		return msg
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return msg
	}
	return b
}

// sentCall is the JSON-RPC call a request sends, zero for none (a GET, a
// notification).
func sentCall(req *http.Request) *jsonrpc.Request {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return &jsonrpc.Request{}
	}
	body, err := req.GetBody()
	if err != nil {
		return &jsonrpc.Request{}
	}
	defer body.Close()
	data, err := io.ReadAll(body)
	if err != nil {
		return &jsonrpc.Request{}
	}
	if msg, err := jsonrpc.DecodeMessage(data); err == nil {
		if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
			return r
		}
	}
	return &jsonrpc.Request{}
}

// readUpTo reads r whole, unless it holds more than max bytes: over,
// and nothing read is kept. size is what the answer says of its length
// (-1 when it does not), so that a larger one is not read at all.
func readUpTo(r io.Reader, size int64, max int) (body []byte, over bool, err error) {
	if size > int64(max) {
		return nil, true, nil
	}
	if size >= 0 {
		body = make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, false, err
		}
		return body, false, nil
	}
	var p pieces
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		p.write(buf[:n])
		if p.n > max {
			return nil, true, nil
		}
		if err == io.EOF {
			return p.bytes(), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// pieces holds bytes in blocks that grow to 1 MiB: an answer found too
// large once it is read to the bound has cost the bound, not the twice
// of it that a doubling buffer costs.
type pieces struct {
	blocks [][]byte
	n      int
}

func (p *pieces) write(b []byte) {
	p.n += len(b)
	for len(b) > 0 {
		if k := len(p.blocks); k > 0 && len(p.blocks[k-1]) < cap(p.blocks[k-1]) {
			last := p.blocks[k-1]
			c := copy(last[len(last):cap(last)], b)
			p.blocks[k-1] = last[:len(last)+c]
			b = b[c:]
			continue
		}
		// The first block is the first write's size: most answers come
		// in one.
		size := len(b)
		if k := len(p.blocks); k > 0 {
			size = min(max(2*cap(p.blocks[k-1]), 4<<10), 1<<20)
		}
		p.blocks = append(p.blocks, make([]byte, 0, size))
	}
}

// bytes is what was written, in one slice.
func (p *pieces) bytes() []byte {
	switch len(p.blocks) {
	case 0:
		return nil
	case 1:
		return p.blocks[0]
	}
	out := make([]byte, 0, p.n)
	for _, b := range p.blocks {
		out = append(out, b...)
	}
	return out
}

// eventStream is a stream of server-sent events, handed on an event at a
// time: an event larger than the bound is not read, and stands for an
// error answer to the call of the stream (or is left out, on a stream of
// no call); an answer to a tools/list is read by toolList.
type eventStream struct {
	r    *bufio.Reader
	c    io.Closer
	t    *answerTransport
	call *jsonrpc.Request
	ctx  context.Context

	out []byte // ready to hand on
	err error
}

func (e *eventStream) Close() error { return e.c.Close() }

func (e *eventStream) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		e.out, e.err = e.next()
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

// next reads the next event, with the blank line that ends it.
func (e *eventStream) next() ([]byte, error) {
	var ev pieces
	over, lineStart := false, true
	for {
		line, err := e.r.ReadSlice('\n')
		if !over {
			ev.write(line)
			over = ev.n > e.t.max
		}
		if err == bufio.ErrBufferFull {
			lineStart = false
			continue
		}
		if err != nil {
			if over {
				return nil, err
			}
			return ev.bytes(), err
		}
		// A blank line (its whole self, not the end of a long one) ends
		// the event.
		blank := lineStart && len(bytes.TrimRight(line, "\r\n")) == 0
		lineStart = true
		if !blank {
			continue
		}
		if over {
			return e.tooLarge(), nil
		}
		return e.readable(ev.bytes()), nil
	}
}

func (e *eventStream) tooLarge() []byte {
	markTooLarge(e.ctx)
	if !e.call.ID.IsValid() {
		e.t.note(fmt.Sprintf("%s: an event of more than %s on its stream was left out", e.t.where, sizeText(int64(e.t.max))))
		return []byte(":\n\n") // a comment: nothing
	}
	return append(append([]byte("data: "), e.t.tooLarge(e.call.ID)...), "\n\n"...)
}

// readable is ev with its data made readable (answerTransport.readable);
// an event left out is a comment.
func (e *eventStream) readable(ev []byte) []byte {
	// The depth of the whole event bounds its data's (its other lines
	// hold no brackets but by mistake): most events are handed on as they
	// came, without a copy of their data.
	if e.call.Method != methodListTools && depth(ev) <= maxMessageDepth {
		return ev
	}
	data, other := eventData(ev)
	if len(data) == 0 {
		return ev
	}
	answer := e.t.readable(data, e.call)
	if answer == nil {
		return []byte(":\n\n")
	}
	var b bytes.Buffer
	b.Write(other)
	b.WriteString("data: ")
	b.Write(answer)
	b.WriteString("\n\n")
	return b.Bytes()
}

// eventData is the data of the event ev, its lines joined, and its other
// lines (an id, an event type) as they came.
func eventData(ev []byte) (data, other []byte) {
	for _, line := range bytes.SplitAfter(ev, []byte("\n")) {
		t := bytes.TrimRight(line, "\r\n")
		if v, ok := bytes.CutPrefix(t, []byte("data:")); ok {
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimSpace(v)...)
			continue
		}
		if len(t) > 0 {
			other = append(other, line...)
		}
	}
	return data, other
}

// sseTransport reaches a server over the older HTTP+SSE transport. Its
// event stream, a GET that carries every answer for the whole session,
// is opened by the SDK with the context given to Connect: that of the
// start, which ends once the server has started. The stream is opened
// with a context of its own, bounded by the start's only while it
// connects, and ended when the connection is closed.
type sseTransport struct{ inner mcp.Transport }

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	streamCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	c, err := t.inner.Connect(streamCtx)
	if !stop() {
		// The start ended while the stream was being opened.
		if err == nil {
			c.Close()
		}
		return nil, context.Cause(ctx)
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	return &sseConn{Connection: c, cancel: cancel}, nil
}

// sseConn is a connection over SSE whose Close ends its stream's context.
type sseConn struct {
	mcp.Connection
	cancel context.CancelCauseFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel(nil)
	return err
}
