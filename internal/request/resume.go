package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/kesoku/kesoku/message"
)

// Finished is what --resume knows of an earlier run from its records file
// (SPEC §5): for each request id with a finished record — any tool_result
// but an aborted one — which request that record answered (its tool and
// the hash of its arguments) and whether it failed.
type Finished struct {
	ids *IDSet // id → a finishedValue
	// Session is the session_id that all the file's tool_result records
	// share, "" when they do not share one: the session a resumed run goes
	// on in, so that one batch's records are one session.
	Session string

	results int  // tool_result records added
	shared  bool // and all of them in one session
}

// NewFinished returns a Finished that knows of no record yet.
func NewFinished() *Finished { return &Finished{ids: newIDMap(), shared: true} }

// Add notes one record of the earlier run, in the order of the file: a
// later finished record of an id replaces an earlier one.
func (f *Finished) Add(h message.Head) {
	if h.Type != message.TypeToolResult {
		return
	}
	if f.results++; f.results == 1 {
		f.Session = h.SessionID
	} else if f.shared && h.SessionID != f.Session {
		f.shared, f.Session = false, ""
	}
	if h.Status != message.StatusAborted && h.ParentID != "" {
		f.ids.put(h.ParentID, finishedValue(h.Name, h.ArgsHash, h.IsError))
	}
}

// A finishedValue packs what is kept of a finished record in 64 bits: the
// error bit, whether the record had an args_hash, and 31 bits each of the
// hashes of its name and of its args_hash. Each is compared for one id
// only, so 31 bits take another request for this one once in two billion.
const (
	finishedFailed  = 1 << 63
	finishedHasArgs = 1 << 62
	half            = 1<<31 - 1
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

// Check says what --resume does with req, whose arguments hash to
// argsHash (ArgsHash).
func (f *Finished) Check(req *Request, argsHash string) Resumption {
	if f == nil || f.ids == nil {
		return NotFinished
	}
	v, ok := f.ids.get(req.ID)
	switch {
	case !ok:
		return NotFinished
	case v&finishedHasArgs == 0 && finishedValue(req.Name, "", false) != v&^finishedFailed:
		// A record written before records had args_hash: the name is what
		// there is to compare.
		return Changed
	case v&finishedHasArgs != 0 && finishedValue(req.Name, argsHash, false) != v&^finishedFailed:
		return Changed
	case v&finishedFailed != 0:
		return Failed
	}
	return Succeeded
}

// Len is how many request ids have a finished record.
func (f *Finished) Len() int { return f.ids.Len() }

// Has reports whether id has a finished record.
func (f *Finished) Has(id string) bool { return f.ids.Has(id) }

// ReadFinished reads the records file at path for --resume. A file that
// does not exist has no records; a torn last line (a run killed mid-write)
// is skipped, a bad line anywhere else is an error. When an id has several
// finished records, the last one counts.
//
// It reads only the head of each record (message.Reader.Head), without
// building the record: a million records take about a second rather than
// several.
func ReadFinished(path string) (*Finished, error) {
	fin := NewFinished()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fin, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	rd := message.NewReader(f, path)
	for rd.Scan() {
		h, err := rd.Head()
		if message.IsTorn(err) {
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
