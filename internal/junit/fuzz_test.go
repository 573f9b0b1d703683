package junit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Whatever a tool's name, an id or an error message holds, the report is
// XML valid against the JUnit XSD, and says the text as it was where XML
// can hold it.
func FuzzReport(f *testing.F) {
	f.Add("call_1", "read_file", "no such file", "tests.yaml")
	f.Add("a \"quoted\" <id>", "t&t", "line 1\nline 2\r\n\ttab ]]> --> \x00\x1b[31m", "dir/with space.yaml")
	f.Add("\xff\xfe", "\u202e", "\U0001F600 \uFFFE \uFFFD", "")
	f.Fuzz(func(t *testing.T, id, tool, msg, class string) {
		path := filepath.Join(t.TempDir(), "r.xml")
		r, err := Create(path, "kesoku run")
		if err != nil {
			t.Fatal(err)
		}
		r.Add(&Case{Name: CaseName(id, tool), Classname: class, Failures: []Failure{{Type: "tool_error", Message: firstLine(msg), Body: msg}}})
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		doc := checkReport(t, b)
		f := doc.Children[0].Children[0].Children[0]
		if body := f.Text.String(); utf8.ValidString(msg) && !strings.ContainsFunc(msg, notXML) && body != strings.ReplaceAll(msg, "\r\n", "\n") && body != msg {
			t.Errorf("body %q, want %q", body, msg)
		}
	})
}

// notXML reports whether XML cannot hold r.
func notXML(r rune) bool {
	return !(r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF)
}
