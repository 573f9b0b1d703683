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
	ids *IDSet // id → entry words (see the entry methods)
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
}

// NewFinished returns a Finished that knows of no record yet.
func NewFinished() *Finished { return &Finished{ids: newIDs(3), shared: true} }

// An entry of Finished is two words beside its id's hash in the set.
//
// The first, check, is what Check compares while the id's request is not
// yet seen by the resumed run: the error bit, whether the record had an
// args_hash, and 31 bits each of the hashes of its name and of its
// args_hash. Each is compared for one id only, so 31 bits take another
// request for this one once in two billion. Once the request is seen, it
// holds the request's position in the resumed run.
//
// The second, place, says whether a finished record counts (else only
// aborted ones were seen), whether the resumed run came to the request,
// and whether it skipped it, keeping its record; then the ordinal of the
// record that counts (its place among the file's records, 1-based) in 29
// bits, and the position that record gives in the low 32 (0 for a record
// without one, or one past 32 bits).
const (
	finishedFailed  = 1 << 63
	finishedHasArgs = 1 << 62
	half            = 1<<31 - 1

	placeFinished = 1 << 63
	placeSeen     = 1 << 62
	placeSkipped  = 1 << 61

	ordinalShift = 32
	maxOrdinal   = 1<<29 - 1
	maxPlace     = 1<<32 - 1
)

func finishedValue(name, argsHash string, failed bool) uint64 {
	v := (fnv(name) & half) << 31
	if argsHash != "" {
		v |= finishedHasArgs | fnv(argsHash)&half
	}
	if failed {
		v |= finishedFailed
	}
	return v
}

// place is the place word of a record at position of the given ordinal.
func place(finished bool, ordinal, position int64) uint64 {
	if ordinal > maxOrdinal {
		ordinal = 0
	}
	if position < 0 || position > maxPlace {
		position = 0
	}
	v := uint64(ordinal)<<ordinalShift | uint64(position)
	if finished {
		v |= placeFinished
	}
	return v
}

func ordinalOf(place uint64) int64  { return int64(place >> ordinalShift & maxOrdinal) }
func positionOf(place uint64) int64 { return int64(place & maxPlace) }

// Add notes one record of the earlier run, in the order of the file. The
// records of an id's request are those at the position of its first
// record (or all of them, written before records had positions): among
// them, a later finished record replaces an earlier one, and an aborted
// one counts only while there is no finished one. A record of the same id
// at another position answered another request given that id (a
// duplicate), and does not count.
func (f *Finished) Add(h Head) {
	f.records++
	if h.Type != message.TypeToolResult {
		return
	}
	if f.results++; f.results == 1 {
		f.Session = h.SessionID
	} else if f.shared && h.SessionID != f.Session {
		f.shared, f.Session = false, ""
	}
	if h.ParentID == "" {
		return
	}
	aborted := h.Status == message.StatusAborted
	words, isNew := f.ids.entry(h.ParentID)
	wasFinished := false
	if !isNew {
		at := positionOf(words[1])
		if at != 0 && h.Position != 0 && at != h.Position {
			return // another request under the same id
		}
		wasFinished = words[1]&placeFinished != 0
		if aborted && wasFinished {
			return
		}
	}
	if !aborted {
		words[0] = finishedValue(h.Name, h.ArgsHash, h.IsError)
		if !wasFinished {
			f.finished++
		}
	}
	words[1] = place(!aborted, f.records, h.Position)
}

// Resumption says what --resume does with a request.
type Resumption int

// What a request's id finds in the earlier run's records.
const (
	// NotFinished: no finished record; the request runs.
	NotFinished Resumption = iota
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
)

// Check says what --resume does with the request id of the tool name,
// whose arguments hash to argsHash (ArgsHash), at position in the resumed
// run, and notes it for Compact: a request skipped keeps its record (at
// its new position), one that gets a new record (Changed, or not
// finished) has its old ones replaced. Each id is checked once: a later
// request with an id already checked is a duplicate, which the run refuses
// before it asks.
func (f *Finished) Check(id, name, argsHash string, position int64) Resumption {
	if f == nil || f.ids == nil {
		return NotFinished
	}
	words := f.ids.values(id)
	if words == nil || words[1]&placeSeen != 0 {
		return NotFinished
	}
	r := NotFinished
	switch v := words[0]; {
	case words[1]&placeFinished == 0:
	case v&finishedHasArgs == 0 && finishedValue(name, "", false) != v&^finishedFailed:
		// A record written before records had args_hash: the name is what
		// there is to compare.
		r = Changed
	case v&finishedHasArgs != 0 && finishedValue(name, argsHash, false) != v&^finishedFailed:
		r = Changed
	case v&finishedFailed != 0:
		r = Failed
	default:
		r = Succeeded
	}
	words[1] |= placeSeen
	if r == Succeeded || r == Failed {
		words[1] |= placeSkipped
	}
	words[0] = uint64(position)
	return r
}

// Len is how many request ids have a finished record.
func (f *Finished) Len() int { return f.finished }

// Has reports whether id has a finished record.
func (f *Finished) Has(id string) bool {
	words := f.ids.values(id)
	return words != nil && words[1]&placeFinished != 0
}

// seen reports whether the resumed run came to a request of id.
func (f *Finished) seen(id string) bool {
	words := f.ids.values(id)
	return words != nil && words[1]&placeSeen != 0
}

// kept says what became of the record of the given ordinal, of the
// request id: whether it is the record a skipped request kept, and at
// which position of the resumed run.
func (f *Finished) kept(id string, ordinal int64) (position int64, ok bool) {
	words := f.ids.values(id)
	if words == nil || words[1]&placeSkipped == 0 || ordinalOf(words[1]) != ordinal {
		return 0, false
	}
	return int64(words[0]), true
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
