package gemini

import (
	"regexp"
	"strings"
	"testing"
)

func TestGeminiPropertyName(t *testing.T) {
	t.Parallel()
	rule := regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)
	for _, name := range []string{"a", "_x", "snake_case1", "A9", "9a", "", "a-b", "a.b", "é", strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		if got, want := geminiPropertyName(name), rule.MatchString(name); got != want {
			t.Errorf("geminiPropertyName(%q) = %v, want %v", name, got, want)
		}
	}
}
