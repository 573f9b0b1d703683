package diff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A Path names a place inside a record, as jq writes it: .content.items[3].name,
// .error.kind, .content["a key"]. Paths that --ignore takes may also hold [],
// every element of an array (or every value of an object), as in jq.
type Path []Step

// Step is one step of a Path: an object's key, an array's index, or every
// element ([]).
type Step struct {
	Key   string
	Index int
	Kind  StepKind
}

// StepKind says which of Step's fields holds the step.
type StepKind uint8

// The kinds of step.
const (
	KeyStep   StepKind = iota // .name or ["name"]
	IndexStep                 // [3]
	EachStep                  // []
)

// ParsePath reads a path in the syntax of String: steps .NAME (NAME a
// letter or _ followed by letters, digits and _), ["ANY KEY"] (a quoted
// string, escapes as in Go; .["ANY KEY"] too), [N] (an array index from 0) and [] (every
// element). The empty path and "." name the whole record.
func ParsePath(s string) (Path, error) {
	if s == "" || s == "." {
		return Path{}, nil
	}
	if s[0] != '.' && s[0] != '[' {
		return nil, errors.New(`a path starts with "." or "["`)
	}
	var p Path
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
			if i < len(s) && s[i] == '[' {
				continue // .["key"], as jq allows
			}
			j := i
			for j < len(s) && isNameByte(s[j], j == i) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf(`at %d: a name must follow "." (write ["..."] for a key that is not a name)`, i+1)
			}
			p = append(p, Step{Kind: KeyStep, Key: s[i:j]})
			i = j
		case '[':
			st, n, err := parseBracket(s[i:])
			if err != nil {
				return nil, fmt.Errorf("at %d: %w", i+1, err)
			}
			p = append(p, st)
			i += n
		default:
			return nil, fmt.Errorf(`at %d: unexpected %q: a step is .name, ["key"], [N] or []`, i+1, s[i])
		}
	}
	return p, nil
}

// parseBracket reads one [...] step at the start of s and returns it with
// its length.
func parseBracket(s string) (Step, int, error) {
	switch {
	case strings.HasPrefix(s, "[]"):
		return Step{Kind: EachStep}, 2, nil
	case len(s) > 1 && s[1] == '"':
		end := closingQuote(s, 1)
		if end < 0 {
			return Step{}, 0, errors.New("a quoted key is not closed")
		}
		key, err := strconv.Unquote(s[1 : end+1])
		if err != nil {
			return Step{}, 0, fmt.Errorf("bad quoted key %s", s[1:end+1])
		}
		if end+1 >= len(s) || s[end+1] != ']' {
			return Step{}, 0, errors.New(`a quoted key must be followed by "]"`)
		}
		return Step{Kind: KeyStep, Key: key}, end + 2, nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return Step{}, 0, errors.New(`"[" is not closed`)
	}
	digits := s[1:end]
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || digits != strconv.Itoa(n) {
		return Step{}, 0, fmt.Errorf("[%s]: an index is a whole number from 0, a key is quoted", digits)
	}
	return Step{Kind: IndexStep, Index: n}, end + 1, nil
}

// closingQuote returns the index of the quote that closes the one at
// s[open], skipping escaped characters; -1 when there is none.
func closingQuote(s string, open int) int {
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func isNameByte(c byte, first bool) bool {
	switch {
	case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		return true
	case '0' <= c && c <= '9':
		return !first
	}
	return false
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

// String writes the path as ParsePath reads it; the whole record is ".".
func (p Path) String() string {
	if len(p) == 0 {
		return "."
	}
	var b strings.Builder
	for _, st := range p {
		switch st.Kind {
		case KeyStep:
			if isName(st.Key) {
				b.WriteByte('.')
				b.WriteString(st.Key)
			} else {
				b.WriteByte('[')
				b.WriteString(strconv.Quote(st.Key))
				b.WriteByte(']')
			}
		case IndexStep:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(st.Index))
			b.WriteByte(']')
		case EachStep:
			b.WriteString("[]")
		}
	}
	return b.String()
}

func keyStep(k string) Step { return Step{Kind: KeyStep, Key: k} }
func indexStep(i int) Step  { return Step{Kind: IndexStep, Index: i} }

// matches reports whether the step of a pattern, st, matches the step o of
// a place in a record.
func (st Step) matches(o Step) bool {
	switch st.Kind {
	case EachStep:
		return o.Kind != EachStep
	case KeyStep:
		return o.Kind == KeyStep && o.Key == st.Key
	}
	return o.Kind == IndexStep && o.Index == st.Index
}

// ignoreSet is what is left out of a comparison: each pattern as the steps
// that remain to match below the current place.
type ignoreSet []Path

// below returns the patterns that still apply under the step st, and
// whether one of them ends there: then the place is ignored whole.
func (s ignoreSet) below(st Step) (ignoreSet, bool) {
	var next ignoreSet
	for _, p := range s {
		if len(p) > 0 && p[0].matches(st) {
			if len(p) == 1 {
				return nil, true
			}
			next = append(next, p[1:])
		}
	}
	return next, false
}
