package records

import (
	"fmt"
)

// MaxDepth is how many levels a line of a records file may nest, the
// record's own object included: as deep as the readers of records read
// (Head, Record, and so diff, merge and --resume; the JSON libraries
// under them stop at 10,000), and so as deep as every writer of records
// writes. What kesoku writes, kesoku reads.
const MaxDepth = 10000

// MaxContentDepth is how many levels a record's content (and
// provider_data) may nest: one level below the record's object.
const MaxContentDepth = MaxDepth - 1

// DepthError says a value nests deeper than a record can hold.
type DepthError struct {
	// Limit is the levels it may nest: MaxContentDepth.
	Limit int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nested more than %s levels deep, deeper than a record holds", commas(e.Limit))
}

// commas is n with its thousands separated: 9,999.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// tooDeep reports whether the JSON text b nests more than limit levels.
// Each level takes two bytes at least (its opening and closing bracket),
// so most values are passed by their length alone.
func tooDeep(b []byte, limit int) bool {
	if len(b) <= 2*limit {
		return false
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > limit {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}
