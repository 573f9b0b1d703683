// Command yamlparsers measures the ways of reading a YAML request file
// that were weighed before kesoku's own reader was written: the whole
// file, or item by item, with goccy/go-yaml (the library kesoku uses) and
// with go.yaml.in/yaml/v3 and v4. Each way runs in a process of
// its own, so that compare.sh-style peak RSS can be read from outside:
//
//	yamlparsers MODE FILE
//
// MODE is one of: goccy-whole, goccy-lex, goccy-items, v3-whole,
// v3-items, v3-stream, v4-whole, v4-items. FILE is a block list of
// requests, each item starting with "- " at the start of a line (what
// bench/compare.sh writes); "items" modes parse each item on its own, as
// kesoku does. It prints the wall time and the items parsed.
package main

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	yaml3 "go.yaml.in/yaml/v3"
	yaml4 "go.yaml.in/yaml/v4"
)

// items cuts a block list at the lines that start an item.
func items(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		next := i + j + 1
		if next < len(data) && data[next] == '-' && next > start {
			out = append(out, data[start:next])
			start = next
		}
		i = next
	}
	return append(out, data[start:])
}

func run(mode string, data []byte) (int, error) {
	n := 0
	switch mode {
	case "goccy-whole":
		f, err := parser.ParseBytes(data, 0)
		if err != nil {
			return 0, err
		}
		return len(f.Docs), nil
	case "goccy-lex":
		return len(lexer.Tokenize(string(data))), nil
	case "goccy-items":
		for _, it := range items(data) {
			if _, err := parser.Parse(lexer.Tokenize(string(it)), 0); err != nil {
				return 0, err
			}
			n++
		}
	case "v3-whole":
		var node yaml3.Node
		if err := yaml3.Unmarshal(data, &node); err != nil {
			return 0, err
		}
		return len(node.Content[0].Content), nil
	case "v3-items":
		for _, it := range items(data) {
			var node yaml3.Node
			if err := yaml3.Unmarshal(it, &node); err != nil {
				return 0, err
			}
			n++
		}
	case "v3-stream":
		// The items as a stream of documents, through one Decoder.
		var b bytes.Buffer
		for _, it := range items(data) {
			b.WriteString("---\n")
			b.Write(it)
		}
		dec := yaml3.NewDecoder(&b)
		for {
			var node yaml3.Node
			if err := dec.Decode(&node); err != nil {
				break
			}
			n++
		}
	case "v4-whole":
		var node yaml4.Node
		if err := yaml4.Unmarshal(data, &node); err != nil {
			return 0, err
		}
		return len(node.Content[0].Content), nil
	case "v4-items":
		for _, it := range items(data) {
			var node yaml4.Node
			if err := yaml4.Unmarshal(it, &node); err != nil {
				return 0, err
			}
			n++
		}
	default:
		return 0, fmt.Errorf("unknown mode %q", mode)
	}
	return n, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: yamlparsers MODE FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "yamlparsers:", err)
		os.Exit(1)
	}
	start := time.Now()
	n, err := run(os.Args[1], data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "yamlparsers:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d parsed in %.2f s\n", os.Args[1], n, time.Since(start).Seconds())
}
