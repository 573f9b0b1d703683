package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MismatchError says a request on replay is not the one the cassette
// recorded next (Difference says where), or is one more than it holds
// (Difference nil). Nothing was sent anywhere; it is never retried.
type MismatchError struct {
	// Cassette is the cassette's path.
	Cassette string
	// Request is the request's number, from 1, in the session; Method and
	// Path are its own.
	Request      int
	Method, Path string
	// Recorded is how many exchanges the cassette holds.
	Recorded int
	// Difference is the first difference from the request recorded next;
	// nil when every recorded one was played.
	Difference *Difference
}

// Difference is where two requests differ first, and how many places
// they differ in.
type Difference struct {
	// Where is what differs: "method", "path", "query", "body", or a JSON
	// path in the body ("messages[2].content[0].text").
	Where string
	// Recorded and Now are the values there, as JSON (or text), cut short.
	Recorded, Now string
	// More is how many other places differ.
	More int
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s: request %d (%s %s) ", e.Cassette, e.Request, e.Method, e.Path)
	if d := e.Difference; d != nil {
		fmt.Fprintf(&b, "is not the one recorded: at %s, recorded %s, now %s", d.Where, d.Recorded, d.Now)
		if d.More > 0 {
			fmt.Fprintf(&b, " (and %d more %s)", d.More, plural(d.More, "difference", "differences"))
		}
	} else {
		fmt.Fprintf(&b, "was not recorded: the cassette holds %d %s, all played", e.Recorded, plural(e.Recorded, "request", "requests"))
	}
	b.WriteString("; nothing was sent (record it again with --cassette-mode record)")
	return b.String()
}

// Permanent says no retry can change the error: the Transport does not
// retry it, and a provider reports it as it is.
func (e *MismatchError) Permanent() bool { return true }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// compare is the first difference between a recorded request and one
// now, after normalizing both; nil when they match.
func compare(rec, now *Request) *Difference {
	switch {
	case rec.Method != now.Method:
		return &Difference{Where: "method", Recorded: shown(rec.Method), Now: shown(now.Method)}
	case rec.Path != now.Path:
		return &Difference{Where: "path", Recorded: shown(rec.Path), Now: shown(now.Path)}
	case rec.Query != now.Query:
		return &Difference{Where: "query", Recorded: shown(rec.Query), Now: shown(now.Query)}
	}
	if rec.Body != nil && now.Body != nil {
		a, errA := decode(rec.Body)
		b, errB := decode(now.Body)
		if errA == nil && errB == nil {
			var diffs []*Difference
			walk("", normalize(a), normalize(b), &diffs)
			if len(diffs) == 0 {
				return nil
			}
			d := diffs[0]
			d.More = len(diffs) - 1
			return d
		}
	}
	ra, na := bodyText(rec), bodyText(now)
	if ra != na {
		return &Difference{Where: "body", Recorded: shown(ra), Now: shown(na)}
	}
	return nil
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// bodyText is what stands for a body that is not JSON in a comparison.
func bodyText(r *Request) string {
	switch {
	case r.Body != nil:
		return string(r.Body)
	case r.Text != nil:
		return *r.Text
	case r.SHA256 != "":
		return fmt.Sprintf("%d bytes of SHA-256 %s", r.Size, r.SHA256)
	}
	return ""
}

// maxShown bounds a value a difference shows.
const maxShown = 120

// shown is s quoted, cut to maxShown bytes on a character.
func shown(s string) string {
	return strconv.QuoteToGraphic(cut(s))
}

// cut is s cut to maxShown bytes on a character, "…" saying so.
func cut(s string) string {
	if len(s) <= maxShown {
		return s
	}
	n := maxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// shownJSON is v as compact JSON, cut short: a long text is cut as it is
// written, not quoted once more (JSON already escapes what a terminal
// must not get).
func shownJSON(v any) string {
	if v == nil {
		return "nothing"
	}
	data, _ := json.Marshal(v)
	return cut(string(data))
}

// walk appends to diffs every place a and b differ, at most maxDiffs.
func walk(path string, a, b any, diffs *[]*Difference) {
	const maxDiffs = 100
	if len(*diffs) >= maxDiffs {
		return
	}
	differ := func() {
		where := path
		if where == "" {
			where = "the body"
		}
		*diffs = append(*diffs, &Difference{Where: where, Recorded: shownJSON(a), Now: shownJSON(b)})
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			differ()
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, x[k], y[k], diffs)
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			differ()
			return
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			var ea, eb any
			if i < len(x) {
				ea = x[i]
			}
			if i < len(y) {
				eb = y[i]
			}
			walk(fmt.Sprintf("%s[%d]", path, i), ea, eb, diffs)
		}
	default:
		if !equalScalar(a, b) {
			differ()
		}
	}
}

func equalScalar(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// volatile are what changes from one run to the next in what kesoku
// sends, each with what stands for it when requests are compared: a
// UUID (session and record ids, UUIDv7s), a timestamp, a call id kesoku
// made up for a call the model gave none (Gemini's), a duration in
// milliseconds that a tool's record carries. Built at first use: a
// regexp at init costs every command.
var volatile = sync.OnceValue(func() []struct {
	re   *regexp.Regexp
	with string
} {
	return []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`), "<uuid>"},
		{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), "<time>"},
		{regexp.MustCompile(`\bcall_[0-9a-f]{16}\b`), "<call_id>"},
		{regexp.MustCompile(`"duration_ms":\d+`), `"duration_ms":0`},
	}
})

// normalize is v with what changes between runs replaced in every
// string (keys and values): the order of keys is no matter already, as
// objects are compared as maps.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[normalizeString(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	case string:
		return normalizeString(x)
	}
	return v
}

func normalizeString(s string) string {
	for _, r := range volatile() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}
