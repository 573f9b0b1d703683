package eval

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// sniffSize is how much of a file IsCaseFile reads: enough for the keys
// of a first case or request, however long its values.
const sniffSize = 64 << 10

// caseOnly are keys a case has and a request, its wrapper or a record
// never has; requestOnly the other way round.
var (
	caseOnly    = []string{"prompt", "cases", "system", "expect", "max_turns"}
	requestOnly = []string{"name", "requests", "type", "args", "input", "arguments", "function"}
)

// IsCase reports whether data, the start of a YAML or JSON file (or a
// line of JSON Lines), holds cases rather than requests: the keys of its
// first mapping — the file's own, or its first item's — include one only
// a case has (prompt, cases, …) and none only a request has (name, …).
// A key deeper down (a request's argument named prompt) does not count.
// data may be cut anywhere; a byte order mark before it is none of it.
func IsCase(data []byte) bool {
	keys := firstKeys(bytes.TrimPrefix(data, []byte(byteOrderMark)))
	isCase := false
	for _, k := range keys {
		if slices.Contains(requestOnly, k) {
			return false
		}
		isCase = isCase || slices.Contains(caseOnly, k)
	}
	return isCase
}

// IsCaseFile reports whether the file at path reads as an eval file: a
// regular file named as eval files are whose start IsCase (for JSON
// Lines, whose first line that is not blank). A file it cannot read is
// no eval file: its reader says why.
func IsCaseFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".yaml", ".yml", ".json", ".jsonl", ".ndjson":
	default:
		return false
	}
	// Reading a FIFO's start would take it from its reader, and opening
	// one waits for its writer: only a regular file is looked into.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	// Swapped for a FIFO since: not looked into either.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(f, sniffSize))
	if err != nil {
		return false
	}
	if ext == ".jsonl" || ext == ".ndjson" {
		sc := bufio.NewScanner(bytes.NewReader(head))
		sc.Buffer(nil, sniffSize+1)
		for sc.Scan() {
			if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
				return IsCase(line)
			}
		}
		return false
	}
	return IsCase(head)
}

// firstKeys are the keys of the first mapping in data: the file's own
// when it is one, else its first item's. The lexer takes text cut
// anywhere; its tokens carry the nesting that tells a key of the mapping
// from one in a value.
func firstKeys(data []byte) []string {
	tokens, err := yamlpos.Lex(string(data), yamlpos.Bounds{Depth: math.MaxInt, Column: math.MaxInt})
	if err != nil {
		return nil
	}
	var keys []string
	depth := 0
	// The first key's flow depth, and in block style its column and line.
	keyDepth, keyCol, keyLine := -1, 0, 0
	for i, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			depth++
			continue
		case token.SequenceEndType, token.MappingEndType:
			if depth--; keyDepth >= 0 && depth < keyDepth {
				return keys // the first mapping ended
			}
			continue
		case token.CommentType:
			continue
		}
		if keyDepth == 0 && depth == 0 && tk.Position.Line > keyLine && tk.Position.Column < keyCol {
			return keys // dedented: the block mapping ended
		}
		if i+1 >= len(tokens) || tokens[i+1].Type != token.MappingValueType {
			continue
		}
		key, ok := scalarKey(tk)
		if !ok {
			continue
		}
		if keyDepth < 0 {
			keyDepth, keyCol = depth, tk.Position.Column
		}
		if depth == keyDepth && (depth > 0 || tk.Position.Column == keyCol) {
			keys = append(keys, key)
			keyLine = tk.Position.Line
		}
	}
	return keys
}

// scalarKey is the text of a token that can be a mapping's key.
func scalarKey(tk *token.Token) (string, bool) {
	switch tk.Type {
	case token.StringType, token.DoubleQuoteType, token.SingleQuoteType:
		return tk.Value, true
	}
	return "", false
}
