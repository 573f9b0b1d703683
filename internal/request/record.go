package request

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// A Message record in a request file is read as what it says: one of
// type tool_call is a request, with the record's name, its content as the
// arguments and its call_id (or, without one, its id) as the id, so that a
// session transcript replays as it is; a record of another type (text,
// tool_result, a shard's shard_end) is no request, and is passed over
// without a word.

// recordKeys are the members of a Message record that a request does not
// have, by message.Record's own JSON names.
var recordKeys = func() []string {
	var keys []string
	t := reflect.TypeFor[message.Record]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !slices.Contains(requestKeys, name) {
			keys = append(keys, name)
		}
	}
	return keys
}()

// recordMembers is what a request builder keeps of a record's members
// until the object ends: its type may come last.
type recordMembers struct {
	typ string
	// recordAt are the problems said of record members, as unknown fields
	// of a request, dropped when the object is a tool_call record;
	// otherAt those of members neither has, said again in other words.
	recordAt []int
	otherAt  []keyAt
	hinted   bool

	content    any
	hasContent bool
	// badArgs are the arguments a model sent that were no JSON object, as
	// a transcript keeps them: the record's content is a string.
	badArgs   *string
	callID    string
	callIDBad string // what came for call_id when it was no string
	cut       string
}

// keyAt is the problem at index i, said of the member key.
type keyAt struct {
	i   int
	key string
}

// setRecordMember takes a member that only a record has. It is also said
// to be no field of a request, which finish takes back for a tool_call
// record.
func (b *requestBuilder) setRecordMember(key string, v any) {
	rm := &b.rec
	msg := fmt.Sprintf("unknown field %q: a request has id, name and args (or input, or arguments)", key)
	if !rm.hinted {
		msg += "; a Message record is a request when its type is tool_call"
		rm.hinted = true
	}
	rm.recordAt = append(rm.recordAt, len(b.problems))
	b.problems = append(b.problems, msg)
	switch key {
	case "content":
		rm.content, rm.hasContent = v, true
	case "call_id":
		switch x := v.(type) {
		case string:
			rm.callID = x
		case nil:
		default:
			rm.callIDBad = toolspec.Describe(v)
		}
	case "cut":
		rm.cut, _ = v.(string)
	}
}

// finishRecord makes the request of a record of type tool_call.
func (b *requestBuilder) finishRecord() {
	rm := &b.rec
	kept := b.problems[:0]
	for i, p := range b.problems {
		if slices.Contains(rm.recordAt, i) {
			continue
		}
		if j := slices.IndexFunc(rm.otherAt, func(k keyAt) bool { return k.i == i }); j >= 0 {
			p = unknownInRecord(rm.otherAt[j].key)
		}
		kept = append(kept, p)
	}
	b.problems = kept
	if raw, ok := rm.content.(string); ok && rm.hasContent {
		b.setArgs("content", nil) // taken, for a second kind of arguments to be refused
		rm.badArgs = &raw
	} else if rm.hasContent {
		b.setArgs("content", rm.content)
	}
	if rm.callIDBad != "" {
		b.problem("call_id: expected a string, got %s", rm.callIDBad)
	}
	if rm.callID != "" {
		b.req.ID, b.req.CallID = rm.callID, rm.callID
	}
	if rm.cut != "" {
		b.problem("not run: the model's turn was cut short (%s), so the call may be incomplete; the session did not run it either", rm.cut)
	}
	if rm.badArgs != nil {
		// Refused as the session refused the call: the same kind, unless
		// the record has other faults too.
		ae := &ArgsError{Pos: b.req.Pos, Raw: *rm.badArgs}
		if len(b.problems) == 0 {
			b.req.Err = ae
		} else {
			b.problem("%s", ae.Reason())
		}
	}
}

// unknownInRecord is the problem of a member that neither a request nor a
// record has, in a record of type tool_call.
func unknownInRecord(key string) string {
	msg := fmt.Sprintf("unknown field %q: a tool_call record has the fields of a Message record", key)
	if s := english.Suggest(key, append(slices.Clone(requestKeys), recordKeys...)); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

// isOtherRecord reports whether the object is a Message record of a type
// that is no request.
func (b *requestBuilder) isOtherRecord() bool {
	switch message.Type(b.rec.typ) {
	case message.TypeText, message.TypeToolResult, records.TypeShardEnd:
		return true
	}
	return false
}

// otherCount counts the records of a file that are no requests.
type otherCount struct{ n atomic.Int64 }

// Others is how many records of the file read so far were no requests
// (the text and tool_result records of a transcript): Len and Count
// counted them, as they count lines or the elements of a list.
func (f *File) Others() int64 { return f.others.n.Load() }
