package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// Resume rebuilds the conversation from the records of a transcript, in
// the order they were written, and continues the session they belong to.
// A tool_call that has no tool_result — the program was killed while it
// ran — is answered first with an aborted tool_result, appended to the
// Store: both providers refuse a history with an unanswered call.
// Results are put in the order of the calls they answer; a result that
// answers no call is left out.
func (s *Session) Resume(ctx context.Context, recs []*message.Record) error {
	if len(recs) == 0 {
		return errors.New("resume: the transcript holds no records")
	}
	if id := SessionIDOf(recs); id != "" {
		s.opts.SessionID = id
	}
	results := make(map[string]*message.Record)
	for _, rec := range recs {
		// The first result of a call answers it, but for one that waited
		// (deferred): the result of its run, once resumed, replaces it.
		if rec.Type == message.TypeToolResult && rec.ParentID != "" && (results[rec.ParentID] == nil || waits(results[rec.ParentID])) {
			results[rec.ParentID] = rec
		}
	}

	var msgs []Message
	var pending []*ToolCall
	var pendingRecs []*message.Record
	var fixes []*message.Record
	inAssistant := false
	answer := func() {
		if len(pending) == 0 {
			return
		}
		parts := make([]Part, len(pending))
		for i, c := range pending {
			res := results[pendingRecs[i].ID]
			if waits(res) && endsWith(recs, pendingRecs) {
				// A call deferred, after which nothing was said: the turn
				// waits for it (held), and runs once resumed.
				for _, c := range pendingRecs {
					if results[c.ID] == nil {
						results[c.ID] = s.unanswered(c)
						fixes = append(fixes, results[c.ID])
					}
				}
				s.held = holdTurn(pending, pendingRecs, results)
				pending, pendingRecs = nil, nil
				return
			}
			if res == nil {
				res = s.unanswered(pendingRecs[i])
				fixes = append(fixes, res)
			}
			r := resultOf(res)
			r.CallID, r.Name = c.ID, c.Name
			parts[i] = Part{ToolResult: r}
		}
		s.fitResults(msgs, parts)
		msgs = append(msgs, Message{Role: message.RoleUser, Parts: parts})
		pending, pendingRecs = nil, nil
	}
	// The history is rebuilt by the rules recordTurn follows, so that a
	// transcript written before them, or edited by hand, goes out valid.
	s.ids = callIDs{}
	for _, rec := range recs {
		switch {
		case rec.Type == message.TypeToolResult:
			inAssistant = false
		case rec.Role == message.RoleUser && rec.Type == message.TypeText:
			text := visibleText(textOf(rec.Content))
			if text == "" {
				continue
			}
			answer()
			msgs = append(msgs, Message{Role: message.RoleUser, Parts: []Part{{Text: strings.TrimSpace(text)}}})
			inAssistant = false
		case rec.Role == message.RoleAssistant && (rec.Type == message.TypeText || rec.Type == message.TypeToolCall):
			p := Part{ProviderData: rec.ProviderData, Thought: isThought(rec.ProviderData)}
			if rec.Type == message.TypeToolCall {
				id := rec.CallID
				if id == "" {
					id = rec.ID
				}
				p.ToolCall = &ToolCall{ID: s.ids.assign(id), Name: rec.Name, Args: objectOrEmpty(rec.Content)}
			} else {
				p.Text = textOf(rec.Content)
				if !p.Thought {
					p.Text = visibleText(p.Text)
				}
				if p.Text == "" && len(p.ProviderData) == 0 {
					continue
				}
			}
			if !inAssistant {
				answer()
				msgs = append(msgs, Message{Role: message.RoleAssistant})
				inAssistant = true
			}
			m := &msgs[len(msgs)-1]
			if p.ToolCall != nil {
				pending = append(pending, p.ToolCall)
				pendingRecs = append(pendingRecs, rec)
			}
			m.Parts = append(m.Parts, p)
		}
	}
	answer()

	s.history = msgs
	s.last = recs[len(recs)-1].ID
	if len(fixes) > 0 {
		if err := s.append(ctx, fixes...); err != nil {
			return err
		}
	}
	return nil
}

// waits reports whether a call's result says it waits for a person's
// answer: deferred, or not started after a call that was.
func waits(res *message.Record) bool {
	return res != nil && (res.Status == message.StatusDeferred ||
		res.Status == message.StatusAborted && res.Error != nil && res.Error.Message == deferStopMessage)
}

// endsWith reports whether the calls of a turn are the transcript's
// last: nothing but results follows them.
func endsWith(recs, calls []*message.Record) bool {
	last := calls[len(calls)-1]
	for i := len(recs) - 1; i >= 0; i-- {
		switch rec := recs[i]; {
		case rec == last:
			return true
		case rec.Type != message.TypeToolResult:
			return false
		}
	}
	return false
}

// holdTurn is the held turn of calls: the results of those that ran, and
// none for those that wait.
func holdTurn(calls []*ToolCall, recs []*message.Record, results map[string]*message.Record) *heldTurn {
	h := &heldTurn{}
	for i, c := range calls {
		res := results[recs[i].ID]
		if waits(res) {
			res = nil
		} else {
			r := *res
			res = &r
		}
		h.calls = append(h.calls, call{rec: recs[i], call: c})
		h.results = append(h.results, res)
	}
	return h
}

// SessionIDOf is the id of the session a transcript's records belong to:
// that of the first record that has one, "" when none has.
func SessionIDOf(recs []*message.Record) string {
	for _, rec := range recs {
		if rec.SessionID != "" {
			return rec.SessionID
		}
	}
	return ""
}

// AwaitsModel reports whether the conversation rebuilt from a transcript's
// records ends with the user — a prompt, tool results, or calls that
// Resume will answer — so that the model can be asked again without a new
// prompt. It writes nothing.
func AwaitsModel(recs []*message.Record) bool {
	s := NewSession(SessionOptions{Store: discardStore{}})
	if s.Resume(context.Background(), recs) != nil {
		return false
	}
	n := len(s.history)
	return s.held != nil || n > 0 && s.history[n-1].Role == message.RoleUser
}

// discardStore keeps nothing.
type discardStore struct{}

func (discardStore) Append(context.Context, ...*message.Record) error { return nil }

// unanswered is the aborted tool_result of a call that has none.
func (s *Session) unanswered(call *message.Record) *message.Record {
	rec := s.packer().Unanswered(records.Call{ID: call.ID, Name: call.Name, CallID: call.CallID})
	rec.ID = newID()
	return rec
}

// textOf is the text of a text record: its content is a JSON string.
func textOf(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	return string(content)
}
