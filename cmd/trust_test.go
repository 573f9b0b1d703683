package cmd

import (
	"testing"
)

// TestShellQuote: trust shows a command as a POSIX shell would need it
// typed, and never with a character a terminal must not get raw.
func TestShellQuote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}, "npx -y @modelcontextprotocol/server-filesystem ."},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "two words", "it's", "$HOME", "*", "~user", "a=b"}, `echo 'two words' 'it'\''s' '$HOME' '*' '~user' a=b`},
		{[]string{"echo", "a\nb", "\x1b[2K", "it's\t"}, `echo $'a\nb' $'\x1b[2K' $'it\'s\t'`},
		{[]string{`C:\tools\x.exe`, "\u202eexe"}, `'C:\tools\x.exe' $'\u202eexe'`},
		{[]string{`back\slash` + "\x00"}, `$'back\\slash\x00'`},
	} {
		if got := shellQuote(tt.argv); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}
