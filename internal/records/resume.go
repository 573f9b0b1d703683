package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/kesoku/kesoku/message"
)

// Finished is what --resume knows of an earlier run from its records file:
// for each request id with a finished record — any tool_result but an
// aborted one — which request that record answered (its tool and the
// hash of its arguments) and whether it failed. As the resumed run goes,
// Check notes in it what became of each request: skipped, its record
// kept, or run again, its old records replaced. That is what Compact
// keeps of the old records.
type Finished struct {
	ids *IDSet // id → its entry (see below)
	// Session is the session_id that all the file's tool_result records
	// share, "" when they do not share one: the session a resumed run goes
	// on in, so that one batch's records are one session.
	Session string

	results  int  // tool_result records added
	shared   bool // and all of them in one session
	finished int  // ids with a finished record
	// records counts the records added, in the file's order: a record's
	// ordinal is its count when added.
	records int64
	// compact says the file holds one finished record per request in
	// the order of their positions, as a compacted file does (last is the
	// position of the last record); inPlace counts the requests the
	// resumed run skipped at the position their record holds. When it is
	// every record, the file needs no compaction.
	compact bool
	last    int64
	inPlace int64
	// tooMany says a position of the resumed run did not fit its entry:
	// Compact cannot place the records, and leaves the file.
	tooMany bool
	// ends are the shards whose end the file holds.
	ends []ShardEnd
	// approvals are the answers kesoku approve put on deferred records,
	// by request id: few, as a run stops at its first deferred call.
	approvals map[string]approval
}

// approval is kesoku approve's answer to the deferred call of a request,
// with what the call was, so that it answers that call alone.
type approval struct {
	name, argsHash string
	approved       bool
}

// NewFinished returns a Finished that knows of no record yet.
func NewFinished() *Finished { return &Finished{ids: newIDs(2), shared: true, compact: true} }

// An entry of Finished is one word beside its id's hash in the set. Its
// top bits say whether a finished record counts (else only aborted ones
// were seen), whether the resumed run came to the request, and whether
// it skipped it, keeping its record; its low 28 bits are the position of
// the id's request in the earlier run (0 for records written before
// records had positions, or a position past 28 bits).
//
// While the resumed run has not come to the request, the bits between
// say which request the record answered, for Check to compare: whether it
// failed, whether it had an args_hash, and 31 bits of a hash of its name
// and its args_hash. It is compared for one id only, so 31 bits take
// another request for this one once in two billion. Once the run comes to
// the request, they hold its position in the run.
const (
	entryFinished = 1 << 63
	entrySeen     = 1 << 62
	entrySkipped  = 1 << 61
	entryFailed   = 1 << 60
	entryHasArgs  = 1 << 59

	requestShift = 28
	requestMask  = 1<<31 - 1
	hashBits     = requestMask << requestShift
	maxOld       = 1<<28 - 1
	// maxPosition is the last position of the resumed run an entry holds,
	// in the 33 bits between its flags and the old position.
	maxPosition = 1<<33 - 1
)

// requestBits are the bits of an entry that say which request its
// record answered.
func requestBits(name, argsHash string, failed bool) uint64 {
	h := fnv(name)
	v := uint64(0)
	if argsHash != "" {
		h = fnvMore(h, argsHash)
		v |= entryHasArgs
	}
	if failed {
		v |= entryFailed
	}
	return v | (h&requestMask)<<requestShift
}

// oldPosition is a record's position as an entry holds it.
func oldPosition(p int64) uint64 {
	if p <= 0 || p > maxOld {
		return 0
	}
	return uint64(p)
}

// CheckShard refuses a file that ends a shard other than shard of shards,
// when the resumed run is sharded: its compaction would drop the records
// of the other share. A run that is not sharded comes to every request,
// and may finish a shard's file.
func (f *Finished) CheckShard(path string, shard, shards int64) error {
	return checkShard(f.ends, path, shard, shards)
}

// Add notes one record of the earlier run, in the order of the file. The
// records of an id's request are those at the position of its first
// record (or all of them, where records have no positions): among them,
// a later finished record replaces an earlier one, and an aborted one
// counts only while there is no finished one. A record of the id at
// another position answered another request given that id (a duplicate),
// and does not count.
func (f *Finished) Add(h Head) {
	f.records++
	if h.Type != message.TypeToolResult {
		f.compact = false
		return
	}
	if f.results++; f.results == 1 {
		f.Session = h.SessionID
	} else if f.shared && h.SessionID != f.Session {
		f.shared, f.Session = false, ""
	}
	// A deferred call did not run either: a resumed run comes to it again.
	aborted := h.Status == message.StatusAborted || h.Status == message.StatusDeferred
	if aborted || h.Position <= f.last || oldPosition(h.Position) == 0 {
		f.compact = false
	}
	f.last = h.Position
	if h.ParentID == "" {
		f.compact = false
		return
	}
	if h.Status == message.StatusDeferred {
		// The last deferred record of the id holds the answer, if any: a
		// call deferred again was asked again.
		if h.Approval == message.ApprovalApproved || h.Approval == message.ApprovalRefused {
			if f.approvals == nil {
				f.approvals = map[string]approval{}
			}
			f.approvals[h.ParentID] = approval{name: h.Name, argsHash: h.ArgsHash, approved: h.Approval == message.ApprovalApproved}
		} else {
			delete(f.approvals, h.ParentID)
		}
	}
	q := oldPosition(h.Position)
	words, isNew := f.ids.entry(h.ParentID)
	if !isNew {
		f.compact = false
		at := words[0] & maxOld
		if at != 0 && q != 0 && at != q || aborted && words[0]&entryFinished != 0 {
			return
		}
		if q == 0 {
			q = at
		}
	}
	e := requestBits(h.Name, h.ArgsHash, h.IsError && !aborted) | q
	if !aborted {
		if isNew || words[0]&entryFinished == 0 {
			f.finished++
		}
		e |= entryFinished
	}
	words[0] = e
}

// Resumption says what --resume does with a request.
type Resumption int

// What a request's id finds in the earlier run's records.
const (
	// Unknown: the earlier run has no record of the id; the request runs.
	Unknown Resumption = iota
	// NotFinished: no finished record (aborted ones only); the request
	// runs.
	NotFinished
	// Succeeded: a finished record of this request that succeeded; skipped.
	Succeeded
	// Failed: a finished error record of this request; skipped, and the
	// run's exit status says the file holds an error.
	Failed
	// Changed: the finished record of this id answered another request
	// (another tool, or other arguments): the request file changed since.
	// The request must neither be skipped nor run under an id whose record
	// says something else.
	Changed
	// Again: a request of this id came before in the resumed run; this
	// one is a duplicate, refused as the earlier run refused it.
	Again
)

// Check says what --resume does with the request id of the tool name,
// whose arguments hash to argsHash (ArgsHash), at position in the resumed
// run, and notes it for Compact: a request skipped keeps its record (at
// its new position), one that gets a new record (Changed, or not
// finished) has its old ones replaced. A later request of an id already
// checked (or passed) is Again.
func (f *Finished) Check(id, name, argsHash string, position int64) Resumption {
	if f == nil || f.ids == nil {
		return Unknown
	}
	words := f.ids.values(id)
	if words == nil {
		return Unknown
	}
	if words[0]&entrySeen != 0 {
		return Again
	}
	e := words[0]
	r := NotFinished
	if e&entryFinished != 0 {
		// A record written before records had args_hash: the name is
		// what there is to compare.
		ah := ""
		if e&entryHasArgs != 0 {
			ah = argsHash
		}
		switch {
		case requestBits(name, ah, false)&hashBits != e&hashBits:
			r = Changed
		case e&entryFailed != 0:
			r = Failed
		default:
			r = Succeeded
		}
	}
	if position < 0 || position > maxPosition {
		f.tooMany, position = true, 0
	}
	next := e&(entryFinished|maxOld) | entrySeen | uint64(position)<<requestShift
	if r == Succeeded || r == Failed {
		next |= entrySkipped
		if e&maxOld == uint64(position) {
			f.inPlace++
		}
	}
	words[0] = next
	return r
}

// Pass notes a request of id that the resumed run reads and does not run
// (another shard's): a later request of the id is a duplicate, Again, as
// in the whole run.
func (f *Finished) Pass(id string) {
	if words := f.ids.values(id); words != nil && words[0]&entrySeen == 0 {
		words[0] = words[0]&(entryFinished|maxOld) | entrySeen
	}
}

// Knows reports whether the earlier run has records of id: then Check,
// rather than a set of the run's own ids, says whether a request of it is
// a duplicate.
func (f *Finished) Knows(id string) bool { return f != nil && f.ids.values(id) != nil }

// Approval is kesoku approve's answer to the deferred call of the request
// id, of the tool name with arguments hashing to argsHash: whether it was
// approved, and whether it was answered at all. An answer to another call
// under the id (the requests changed) answers nothing.
func (f *Finished) Approval(id, name, argsHash string) (approved, answered bool) {
	if f == nil {
		return false, false
	}
	a, ok := f.approvals[id]
	if !ok || a.name != name || a.argsHash != "" && argsHash != "" && a.argsHash != argsHash {
		return false, false
	}
	return a.approved, true
}

// Len is how many request ids have a finished record.
func (f *Finished) Len() int { return f.finished }

// Has reports whether id has a finished record.
func (f *Finished) Has(id string) bool {
	words := f.ids.values(id)
	return words != nil && words[0]&entryFinished != 0
}

// seen reports whether the resumed run came to a request of id.
func (f *Finished) seen(id string) bool {
	words := f.ids.values(id)
	return words != nil && words[0]&entrySeen != 0
}

// kept says what becomes of a finished record of id at position (the
// record's own, 0 for none): whether a skipped request keeps it, and at
// which position of the resumed run. Of several records of the request,
// the last is the one kept.
func (f *Finished) kept(id string, position int64) (int64, bool) {
	words := f.ids.values(id)
	if words == nil || words[0]&entrySkipped == 0 {
		return 0, false
	}
	if at := words[0] & maxOld; at != 0 && oldPosition(position) != at {
		return 0, false
	}
	return int64(words[0] >> requestShift & maxPosition), true
}

// unchanged reports whether the file holds just what a compaction would
// write of its records: one finished record per request, in the order of
// their positions, each request skipped at its own position.
func (f *Finished) unchanged() bool {
	return f.compact && f.inPlace == f.records
}

// readFinishedFile reads the records file at path for --resume, without
// its lock; a file that does not exist has no records.
func readFinishedFile(path string) (*Finished, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return NewFinished(), nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFinished(f, path)
}

// readFinished reads the records of f (named name in errors) for
// --resume. A torn last line (a run killed mid-write) is skipped, a bad
// line anywhere else is an error.
//
// It reads only the head of each record (Reader.Head), without building
// the record: a million records take about a second rather than several.
func readFinished(f *os.File, name string) (*Finished, error) {
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", name)
	}
	fin := NewFinished()
	rd := NewReader(f, name)
	for rd.Scan() {
		h, err := rd.Head()
		if IsTorn(err) {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Type == TypeShardEnd {
			e, err := shardEndOf(h)
			if err != nil {
				line, _ := rd.Pos()
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			fin.ends = append(fin.ends, e)
		}
		fin.Add(h)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	return fin, nil
}

// ArgsHash is the hash of a request's arguments that its record keeps
// (args_hash), so that --resume knows the request again: 16 hex digits of
// a 64-bit FNV-1a hash over the arguments in a canonical form (object keys
// in order, an integral number the same as the integer), the same for the
// same arguments however the file writes them.
func ArgsHash(args map[string]any) string {
	h := hasher(fnvOffset)
	h.object(args, 0)
	const digits = "0123456789abcdef"
	var b [16]byte
	for i, v := 15, uint64(h); i >= 0; i, v = i-1, v>>4 {
		b[i] = digits[v&0xf]
	}
	return string(b[:])
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(s string) uint64 {
	h := hasher(fnvOffset)
	h.str(s)
	return uint64(h)
}

// fnvMore goes on hashing s after a hash h.
func fnvMore(h uint64, s string) uint64 {
	hh := hasher(h)
	hh.str(s)
	return uint64(hh)
}

// hasher is FNV-1a, fed the canonical form of a value: each value a tag
// byte and its bytes, strings and collections with their lengths, so that
// no two values feed the same bytes.
type hasher uint64

func (h *hasher) byte(c byte) { *h = (*h ^ hasher(c)) * fnvPrime }

func (h *hasher) u64(v uint64) {
	for range 8 {
		h.byte(byte(v))
		v >>= 8
	}
}

func (h *hasher) str(s string) {
	h.u64(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

// maxHashDepth stops a value nested beyond what a request file may hold
// (a model's call in a session is not bounded by the loader).
const maxHashDepth = 1000

func (h *hasher) object(m map[string]any, depth int) {
	h.byte('{')
	h.u64(uint64(len(m)))
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.str(k)
		h.value(m[k], depth+1)
	}
}

func (h *hasher) value(v any, depth int) {
	if depth > maxHashDepth {
		h.byte('!')
		return
	}
	switch x := v.(type) {
	case nil:
		h.byte('n')
	case bool:
		if x {
			h.byte('t')
		} else {
			h.byte('f')
		}
	case string:
		h.byte('s')
		h.str(x)
	case int64:
		h.byte('i')
		h.u64(uint64(x))
	case int:
		h.byte('i')
		h.u64(uint64(x))
	case uint64:
		if x <= math.MaxInt64 {
			h.byte('i')
		} else {
			h.byte('u')
		}
		h.u64(x)
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			h.byte('i')
			h.u64(uint64(int64(x)))
			return
		}
		h.byte('d')
		h.u64(math.Float64bits(x))
	case map[string]any:
		h.object(x, depth)
	case []any:
		h.byte('[')
		h.u64(uint64(len(x)))
		for _, e := range x {
			h.value(e, depth+1)
		}
	default:
		// Not a value a request file or a model's call gives; hashed by its
		// JSON form.
		b, _ := json.Marshal(x)
		h.byte('j')
		h.str(string(b))
	}
}
