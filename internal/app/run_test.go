package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequestTotal checks the progress bar's total: the requests of every
// file, JSON Lines files counted only when a bar will show them, and not
// known at all for standard input, which cannot be read twice.
func TestRequestTotal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	y := writeFile(t, dir, "a.yaml", "- name: sum\n- name: sum\n")
	j := writeFile(t, dir, "b.jsonl", "{\"name\": \"sum\"}\n\n{\"name\": \"sum\"}\nbad\n")
	tests := []struct {
		name  string
		files []string
		count bool
		want  int64
	}{
		{"whole files", []string{y}, false, 2},
		{"json lines counted", []string{y, j}, true, 5},
		{"json lines not counted without a bar", []string{y, j}, false, -1},
		{"standard input", []string{y, "-"}, true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Standard input is sniffed as JSON Lines.
			files, err := OpenRequestFiles(context.Background(), tt.files, "", strings.NewReader("{\"name\": \"sum\"}\n"))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, f := range files {
					f.Close()
				}
			}()
			if got := RequestTotal(context.Background(), files, tt.count); got != tt.want {
				t.Errorf("total = %d, want %d", got, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
