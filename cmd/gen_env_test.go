//go:build unix

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenGoEnviron: the go command kesoku gen runs gets Go's environment
// (GOFLAGS, GOPROXY, CGO_ENABLED) and what any program needs, and none
// of kesoku's secrets: a provider's key, GOOGLE_API_KEY though it begins
// with GO. The go command here is a fake one that notes its environment.
func TestGenGoEnviron(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "env")
	fake := filepath.Join(dir, "bin")
	os.Mkdir(fake, 0o755)
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte("#!/bin/sh\n/usr/bin/env >> "+dump+"\necho 'the fake go fails' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake)
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("CGO_ENABLED", "0")
	t.Setenv("GOOGLE_API_KEY", "test-google-gen-0123")
	t.Setenv("ANTHROPIC_API_KEY", "test-anthropic-gen-0123")
	t.Chdir(dir)
	var errOut bytes.Buffer
	if err := runGen(context.Background(), &genOptions{IO: &ioStreams{Out: &bytes.Buffer{}, Err: &errOut}, Patterns: []string{"."}}); err == nil {
		t.Fatal("gen succeeded with a go command that fails")
	}
	got, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("the go command did not run: %v", err)
	}
	env := string(got)
	for _, want := range []string{"GOFLAGS=-mod=mod\n", "GOPROXY=off\n", "CGO_ENABLED=0\n", "PATH=" + fake + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the go command's environment lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "-gen-0123") {
		t.Errorf("the go command got a secret:\n%s", env)
	}
}
