package jsonschema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuite runs the JSON-Schema-Test-Suite's required tests when
// KESOKU_JSON_SCHEMA_TEST_SUITE names a checkout of it (its tests
// directory is not kept here). Groups whose schema refers to the suite's
// remote documents (http://localhost:1234/) are counted apart: this
// package loads nothing. Every other group must pass, those that refer
// to a draft's meta-schema included.
func TestSuite(t *testing.T) {
	dir := os.Getenv("KESOKU_JSON_SCHEMA_TEST_SUITE")
	if dir == "" {
		t.Skip("set KESOKU_JSON_SCHEMA_TEST_SUITE to a checkout of JSON-Schema-Test-Suite to run it")
	}
	for _, d := range []struct {
		dir   string
		draft Draft
	}{{"draft4", Draft4}, {"draft6", Draft6}, {"draft7", Draft7}, {"draft2019-09", Draft2019}, {"draft2020-12", Draft2020}} {
		t.Run(d.dir, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(dir, "tests", d.dir, "*.json"))
			passed, failed, refused := 0, 0, 0
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var groups []struct {
					Description string
					Schema      json.RawMessage
					Tests       []struct {
						Description string
						Data        json.RawMessage
						Valid       bool
					}
				}
				if err := json.Unmarshal(data, &groups); err != nil {
					t.Fatal(err)
				}
				for _, g := range groups {
					doc, err := Decode(g.Schema)
					if err != nil {
						t.Fatal(err)
					}
					s, err := Compile("mem:///suite.json", doc, Options{Draft: d.draft})
					var re *RefError
					if errors.As(err, &re) && strings.Contains(string(g.Schema), "http://localhost:1234/") {
						refused += len(g.Tests)
						continue
					}
					if err != nil {
						t.Errorf("%s: %s: compile: %v", filepath.Base(f), g.Description, err)
						failed += len(g.Tests)
						continue
					}
					for _, tc := range g.Tests {
						v, err := Decode(tc.Data)
						if err != nil {
							t.Fatal(err)
						}
						err = s.Validate(v)
						if (err == nil) != tc.Valid {
							failed++
							t.Errorf("%s: %s: %s: valid %v, got %v", filepath.Base(f), g.Description, tc.Description, tc.Valid, err)
							continue
						}
						passed++
					}
				}
			}
			t.Logf("%s: %d passed, %d failed, %d refused (a remote document)", d.dir, passed, failed, refused)
		})
	}
}
