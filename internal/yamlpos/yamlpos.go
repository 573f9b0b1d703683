// Package yamlpos is what kesoku's readers of YAML share: positions, bounded
// parsing, and one conversion to JSON.
//
// Request files, config files and the declarations in them (tools:,
// mcpServers:) share the place of a thing in a file (Pos, which the readers of JSON use too),
// goccy/go-yaml's tokens and syntax tree read within bounds that keep its
// parser fast, the place of every node, and the words for what a node is.
package yamlpos

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Pos is a place in a file, for messages: file:line:column. The zero Pos
// names no place (a request that came from no file, a model's call).
type Pos struct {
	File      string
	Line, Col int
}

// IsZero reports whether p names no place.
func (p Pos) IsZero() bool { return p.File == "" && p.Line == 0 }

func (p Pos) String() string {
	switch {
	case p.IsZero():
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Prefix puts the place before msg, as messages about a place in a file
// read: "requests.yaml:12:5: msg". A zero Pos adds nothing.
func (p Pos) Prefix(msg string) string {
	if p.IsZero() {
		return msg
	}
	return p.String() + ": " + msg
}

// Snippet is the line of text that p is on, for a message: the line, and
// a caret under p's column, each after the line's number ("" when p
// names no line of text). A tab shows as a space, so that the caret
// stands under its character.
func Snippet(text string, p Pos) string {
	if p.Line <= 0 {
		return ""
	}
	return SnippetOf(Line(text, p.Line), p.Line, p.Col)
}

// Line is line n (from 1) of text, without its line ending; "" past the
// end.
func Line(text string, n int) string {
	for ; n > 1; n-- {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return ""
		}
		text = text[i+1:]
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSuffix(text, "\r")
}

// SnippetOf is Snippet of the line src, numbered line, with the caret at
// col (none when col is 0 or past the line's end).
func SnippetOf(src string, line, col int) string {
	if src == "" || line == 0 {
		return ""
	}
	src = strings.ReplaceAll(src, "\t", " ")
	if len(src) > 200 {
		src = src[:200] + "…"
	}
	n := strconv.Itoa(line)
	caret := ""
	if col > 0 && col <= len(src)+1 {
		caret = "\n " + strings.Repeat(" ", len(n)) + " | " + strings.Repeat(" ", col-1) + "^"
	}
	return " " + n + " | " + src + caret
}

// At is where tk stands in file; the file alone when tk has no place.
func At(file string, tk *token.Token) Pos {
	p := Pos{File: file}
	if tk != nil && tk.Position != nil {
		p.Line, p.Col = tk.Position.Line, tk.Position.Column
	}
	return p
}

// Of is where the node n stands in file.
func Of(file string, n ast.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return At(file, n.GetToken())
}

// Bounds are what goccy/go-yaml's parser is given at most: it takes time
// quadratic in the nesting depth, so deep nesting is refused before it
// runs.
type Bounds struct {
	// Depth bounds the nesting of flow collections ([ and {).
	Depth int
	// Column bounds the column a block collection's entry (- ) or
	// explicit key (? ) may stand at: each level of block nesting needs a
	// deeper indentation, so this bounds block nesting.
	Column int
}

// Error is a mistake in YAML at a token: nil for the start of the text.
type Error struct {
	Token *token.Token
	Msg   string
	// FirstLine and FirstCol are, for a key given twice, where the text
	// gave it first (0 for other mistakes): a caller that parsed a part of
	// a file puts FirstLine in the file's numbering.
	FirstLine, FirstCol int
}

func (e *Error) Error() string {
	if e.FirstLine > 0 {
		return fmt.Sprintf("%s (first at line %d, column %d)", e.Msg, e.FirstLine, e.FirstCol)
	}
	return e.Msg
}

// Lex splits text into goccy/go-yaml's tokens and refuses nesting beyond
// b. Its errors are *Error, the lexer's panics among them: the library is
// not ours, and an input that makes it panic is a text that does not
// parse, not a crash.
func Lex(text string, b Bounds) (tokens token.Tokens, err error) {
	defer func() {
		if v := recover(); v != nil {
			tokens, err = nil, &Error{Msg: fmt.Sprintf("invalid YAML: the parser failed: %v", v)}
		}
	}()
	// A CRLF is one line break, as YAML says: goccy/go-yaml's lexer
	// counts it as two inside a quoted scalar, which puts what follows on
	// a line the text does not have, and folds it into another value.
	text = strings.ReplaceAll(text, "\r\n", "\n")
	tokens = lexer.Tokenize(text)
	flow := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if flow++; flow > b.Depth {
				return nil, &Error{Token: tk, Msg: fmt.Sprintf("invalid YAML: nesting deeper than %d levels", b.Depth)}
			}
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingKeyType:
			if flow == 0 && tk.Position != nil && tk.Position.Column > b.Column {
				return nil, &Error{Token: tk, Msg: fmt.Sprintf("invalid YAML: nesting deeper than %d columns of indentation", b.Column)}
			}
		}
	}
	return tokens, nil
}

// Parse parses tokens and returns their documents that hold a value, each
// Body looked through the comments around it. Its errors are *Error, the
// parser's panics among them.
func Parse(tokens token.Tokens) (docs []*ast.DocumentNode, err error) {
	defer func() {
		if v := recover(); v != nil {
			docs, err = nil, &Error{Msg: fmt.Sprintf("invalid YAML: the parser failed: %v", v)}
		}
	}()
	file, err := parser.Parse(withoutEmptyDocuments(tokens), 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			e := &Error{Token: ye.GetToken(), Msg: "invalid YAML: " + strings.ReplaceAll(ye.GetMessage(), "\t", `\t`)}
			if tk := e.Token; tk != nil && tk.Type == token.InvalidType && strings.HasSuffix(tk.Value, "\t") {
				// The scanner's words quote the tab itself, which shows as
				// blank space: say what it is, and what YAML wants.
				e.Msg = "invalid YAML: a tab in the indentation: YAML is indented with spaces, never tabs; indent with spaces"
			}
			// The parser places a key's first definition in its words, as [line:column].
			if head, place, ok := strings.Cut(e.Msg, " already defined at ["); ok {
				if _, err := fmt.Sscanf(place, "%d:%d]", &e.FirstLine, &e.FirstCol); err == nil {
					e.Msg = head + " already defined"
				}
			}
			return nil, e
		}
		return nil, &Error{Msg: "invalid YAML: " + err.Error()}
	}
	for _, d := range file.Docs {
		if d == nil {
			continue
		}
		if d.Body = Body(d.Body); d.Body != nil {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// withoutEmptyDocuments is tokens without the header of each document
// that holds nothing but comments: goccy/go-yaml's parser drops every
// document after two headers in a row, and a document of nothing is one
// Parse leaves out.
func withoutEmptyDocuments(tokens token.Tokens) token.Tokens {
	var out token.Tokens
	for i, tk := range tokens {
		if tk.Type == token.DocumentHeaderType {
			next := i + 1
			for next < len(tokens) && tokens[next].Type == token.CommentType {
				next++
			}
			if next < len(tokens) && tokens[next].Type == token.DocumentHeaderType {
				if out == nil {
					out = append(token.Tokens{}, tokens[:i]...)
				}
				continue
			}
		}
		if out != nil {
			out = append(out, tk)
		}
	}
	if out == nil {
		return tokens
	}
	return out
}

// Body looks through comments and documents to the node that holds a
// value: nil when there is none.
func Body(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.CommentGroupNode:
			return nil
		case *ast.DocumentNode:
			n = x.Body
		default:
			return n
		}
	}
}

// Mapping is n as a mapping (a mapping of one key is a MappingValueNode
// in goccy/go-yaml's tree): nil when n is none.
func Mapping(n ast.Node) *ast.MappingNode {
	switch x := n.(type) {
	case *ast.MappingNode:
		return x
	case *ast.MappingValueNode:
		return &ast.MappingNode{BaseNode: x.BaseNode, Values: []*ast.MappingValueNode{x}}
	}
	return nil
}

// ScalarText is the text of a scalar as written, without its quotes: a
// string as it is, a number, boolean or null as its text. ok is false for
// a node that is no scalar. A mapping key is read as its value.
func ScalarText(n ast.Node) (text string, ok bool) {
	switch x := n.(type) {
	case *ast.MappingKeyNode:
		return ScalarText(x.Value)
	case *ast.StringNode:
		return x.Value, true
	case *ast.LiteralNode:
		if x.Value == nil {
			return "", true
		}
		return x.Value.Value, true
	case *ast.NullNode:
		if x.Token != nil && x.Token.Type == token.ImplicitNullType {
			return "", true // nothing written
		}
		return x.Token.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	}
	return "", false
}

// KindOf names what a node is, for messages: "a mapping", "a list", "a
// string", "a number", "nothing"… Anchors, aliases and tags are named as
// what the files read through it (config files, eval files) do not take,
// in words that fit either.
func KindOf(n ast.Node) string {
	switch n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.AnchorNode, *ast.AliasNode:
		return "an anchor or alias (not taken here)"
	case *ast.TagNode:
		return "a tagged value (not taken here)"
	}
	return "a " + strings.ToLower(strings.TrimSuffix(n.Type().String(), "Type"))
}
