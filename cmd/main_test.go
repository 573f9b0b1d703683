package cmd

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user's config directory at an empty one of its
// own: the developer's ~/.config/kesoku must not change what the tests
// see.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kesoku-cmd-test-config")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
