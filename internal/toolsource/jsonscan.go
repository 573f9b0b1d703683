package toolsource

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The readers of JSON that kesoku and the SDK use refuse what nests too
// deep (the SDK at 1,000 levels, encoding/json at 10,000), so that a
// message nested deeper could not be taken apart with them: neither the
// call it answers found, nor the one tool of a list that nests too deep
// left out. These functions split JSON at its top level by its brackets
// alone, at any depth, decoding nothing but the keys; each part is read
// (and refused) on its own afterwards.

// members calls f with each member of the JSON object b: its key and its
// value's bytes. It returns false, having stopped, when f does, or at the
// first byte that is no JSON object's (b cut short included): the members
// before it have been seen.
func members(b []byte, f func(key string, value []byte) bool) bool {
	i := space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		end, ok := skipValue(b, i)
		if !ok || b[i] != '"' {
			return false
		}
		var key string
		if json.Unmarshal(b[i:end], &key) != nil {
			return false
		}
		i = space(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = space(b, i+1)
		end, ok = skipValue(b, i)
		if !ok || !f(key, b[i:end]) {
			return false
		}
		i = space(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = space(b, i+1)
		default:
			return false
		}
	}
}

// elements calls f with each element of the JSON array b, as members
// does with an object's members.
func elements(b []byte, f func(value []byte) bool) bool {
	i := space(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		end, ok := skipValue(b, i)
		if !ok || !f(b[i:end]) {
			return false
		}
		i = space(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ']':
			return true
		case ',':
			i = space(b, i+1)
		default:
			return false
		}
	}
}

// skipValue is the end of the JSON value that starts at b[i]: a string
// to its closing quote, an object or an array to its closing bracket
// (counted, outside strings), anything else to the byte that ends it.
// What is inside is not checked: the value's reader does that.
func skipValue(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, true
			}
		}
		return 0, false
	case '{', '[':
		d := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, ok := skipValue(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				d++
			case '}', ']':
				if d--; d == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	case ',', ':', '}', ']':
		return 0, false
	}
	j := i
	for j < len(b) && !isDelim(b[j]) {
		j++
	}
	if j == len(b) {
		// Cut short, perhaps: a number may go on.
		return 0, false
	}
	return j, true
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// answerID is the id of msg when msg is a JSON-RPC answer (an object with
// an id and a result or an error), at any depth and wherever its id is;
// msg cut short names its id only when the id comes first.
func answerID(msg []byte) (jsonrpc.ID, bool) {
	var rawID []byte
	answer, request := false, false
	whole := members(msg, func(key string, value []byte) bool {
		switch key {
		case "id":
			rawID = value
		case "result", "error":
			answer = true
		case "method":
			request = true
		}
		return true
	})
	if rawID == nil {
		return jsonrpc.ID{}, false
	}
	var v any
	if json.Unmarshal(rawID, &v) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	// A message cut short before its result is taken for an answer by its
	// id, unless it said it is a request.
	return id, answer || !whole && !request
}

// hasMember reports whether the JSON object msg has a member key at its
// top level.
func hasMember(msg []byte, key string) bool {
	found := false
	members(msg, func(k string, _ []byte) bool {
		found = k == key
		return !found
	})
	return found
}
