package runner

import (
	"time"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
)

// call is what the record of req says of it.
func (r *ToolRunner) call(req *request.Request) records.Call {
	return records.Call{ID: req.ID, Name: req.Name, SessionID: req.SessionID, CallID: req.CallID}
}

func (r *ToolRunner) sessionID(req *request.Request) string {
	if req.SessionID != "" {
		return req.SessionID
	}
	return r.opts.SessionID
}

// Refused is the record, with an id of its own, of a request refused
// before it reached the runner, because of why, said as msg ("" for why's
// text): an MCP client's call of a tool its server does not offer, which
// the client is answered for with the protocol's error but which has its
// record as every call has.
func (r *ToolRunner) Refused(req *request.Request, why error, msg string) *message.Record {
	rec := r.opts.Secrets.Record(r.pk.Refused(r.call(req), why, msg))
	rec.ID = message.NewID()
	return rec
}

// failure is the record of a request refused before it ran.
func (r *ToolRunner) failure(req *request.Request, p *Problem) *message.Record {
	return r.opts.Secrets.Record(r.pk.Refused(r.call(req), p, ""))
}

// aborted is the record of a request cut short by an interrupt (or
// --fail-fast) after d.
func (r *ToolRunner) aborted(req *request.Request, msg string, d time.Duration) *message.Record {
	return r.opts.Secrets.Record(r.pk.Aborted(r.call(req), msg, d))
}
