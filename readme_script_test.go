package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["readme"] = cmdReadme }

// cmdReadme copies a piece of README.md out for a script to hold the
// README to what the program really does:
//
//	readme go TEXT FILE          the first ```go block holding TEXT
//	readme sh TEXT FILE          the first ```sh block holding TEXT
//	readme json TEXT FILE        the first ```json block holding TEXT
//	readme yaml TEXT FILE        the first ```yaml block holding TEXT
//	readme console 'CMD' FILE    what the README shows CMD printing: the
//	                             lines after "$ CMD" in a ```console
//	                             block, up to the next "$ " line
//
// The README is read from $KESOKU_ROOT, the repository root. A first
// argument FILE=docs/x.md reads that file of the repository instead, for
// what moved out of the README into docs/.
func cmdReadme(ts *testscript.TestScript, neg bool, args []string) {
	doc := "README.md"
	if len(args) > 0 {
		if f, ok := strings.CutPrefix(args[0], "FILE="); ok {
			doc, args = filepath.FromSlash(f), args[1:]
		}
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: readme [FILE=docs/x.md] go|sh|json|yaml|console TEXT FILE")
	}
	lang, text, out := args[0], args[1], args[2]
	data, err := os.ReadFile(filepath.Join(ts.Getenv("KESOKU_ROOT"), doc))
	ts.Check(err)
	var (
		inBlock, found, taking bool
		block                  []string
	)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
scan:
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !inBlock && line == "```"+lang:
			inBlock, block = true, block[:0]
			continue
		case inBlock && line == "```":
			inBlock = false
			found = taking || lang != "console" && strings.Contains(strings.Join(block, "\n"), text)
			if found {
				break scan
			}
		case inBlock && lang == "console" && strings.HasPrefix(line, "$ "):
			if found = taking; found {
				break scan
			}
			taking = line == "$ "+text
		case inBlock && (lang != "console" || taking):
			block = append(block, line)
		}
	}
	ts.Check(sc.Err())
	if !found {
		ts.Fatalf("readme: no ```%s block in %s holds %q", lang, doc, text)
	}
	ts.Check(os.WriteFile(ts.MkAbs(out), []byte(strings.Join(block, "\n")+"\n"), 0o644))
}
