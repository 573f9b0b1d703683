package diff

import (
	"encoding/json"
	"testing"
)

// TestSummary pins the line and the JSON diff closes with.
func TestSummary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sum        Summary
		text, json string
	}{
		{Summary{Total: 1, Same: 1}, "kesoku: 1 request, no differences", ""},
		{Summary{}, "kesoku: 0 requests, no differences",
			`{"command":"diff","total":0,"same":0,"different":0,"changed":0,"new_errors":0,"fixed":0,"only_old":0,"only_new":0,"old":"","new":""}`},
		{Summary{Total: 120, Changed: 1, NewErrors: 2, Fixed: 1, OnlyOld: 1, OnlyNew: 3, Old: "g.jsonl", New: "n.jsonl"},
			"kesoku: 8 of 120 requests differ: 1 changed, 2 new errors, 1 fixed, 1 only in g.jsonl, 3 only in n.jsonl", ""},
		{Summary{Total: 2, NewErrors: 1}, "kesoku: 1 of 2 requests differs: 1 new error", ""},
		{Summary{Total: 1, Changed: 1}, "kesoku: 1 of 1 request differs: 1 changed", ""},
		{Summary{Total: 5, Same: 1, Changed: 1, NewErrors: 1, OnlyNew: 2, Old: "g.jsonl", New: "n.jsonl"}, "",
			`{"command":"diff","total":5,"same":1,"different":4,"changed":1,"new_errors":1,"fixed":0,"only_old":0,"only_new":2,"old":"g.jsonl","new":"n.jsonl"}`},
		{Summary{Total: 9, Same: 3, Changed: 1, NewErrors: 1, Fixed: 1, OnlyOld: 1, OnlyNew: 2, Torn: []string{"a", "b"}, Old: "old", New: "new"},
			"kesoku: 6 of 9 requests differ: 1 changed, 1 new error, 1 fixed, 1 only in old, 2 only in new",
			`{"command":"diff","total":9,"same":3,"different":6,"changed":1,"new_errors":1,"fixed":1,"only_old":1,"only_new":2,"old":"old","new":"new","torn":["a","b"]}`},
	} {
		if got := tt.sum.String(); tt.text != "" && got != tt.text {
			t.Errorf("text:\ngot  %q\nwant %q", got, tt.text)
		}
		got, err := json.Marshal(tt.sum)
		if err != nil {
			t.Fatal(err)
		}
		if tt.json != "" && string(got) != tt.json {
			t.Errorf("json:\ngot  %s\nwant %s", got, tt.json)
		}
	}
}
