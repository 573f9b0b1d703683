package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePermissions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text string
		want       []string // each rule as By says it
		err        string   // after "/x/kesoku.yaml:"
	}{
		{name: "lists", text: "permissions:\n  allow: [read_file]\n  deny:\n    - \"write_file(path=.git/**)\"\n",
			want: []string{`allow rule "read_file" (/x/kesoku.yaml:2:11)`, `deny rule "write_file(path=.git/**)" (/x/kesoku.yaml:4:7)`}},
		{name: "one rule", text: "permissions:\n  ask: fs__*\n", want: []string{`ask rule "fs__*" (/x/kesoku.yaml:2:8)`}},
		{name: "empty", text: "permissions:\n  deny:\n"},
		{name: "a typo", text: "permissions:\n  denny: [x]\n", err: `2:3: permissions: unknown key "denny" (did you mean "deny"?)`},
		{name: "a bad rule", text: "permissions:\n  deny: [\"write_file(path=x\"]\n", err: `2:10: permissions: deny: rule "write_file(path=x": no closing parenthesis`},
		{name: "a mapping", text: "permissions:\n  deny: {a: 1}\n", err: `2:9: permissions: deny: want a list of rules`},
		{name: "not a mapping", text: "permissions: [x]\n", err: `1:14: permissions: want a mapping`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("/x/kesoku.yaml", []byte(tt.text), keys)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "/x/kesoku.yaml:"+tt.err) {
					t.Fatalf("err = %v, want /x/kesoku.yaml:%s…", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range f.Permissions {
				got = append(got, r.By())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rules mismatch (-want +got):\n%s", diff)
			}
			if c := f.Consequential(); len(tt.want) > 0 && (len(c) != 1 || !strings.HasPrefix(c[0], "permissions")) {
				t.Errorf("Consequential = %q, want permissions: a found file's rules need approval", c)
			}
		})
	}
}
