package secret_test

import (
	"slices"
	"testing"

	"github.com/kesoku/kesoku/internal/secret"
)

// TestGoAndBrowserEnviron: the go command gets Go's variables and the
// browser the display's, besides the base ones; neither gets a key,
// GOOGLE_API_KEY (which begins with GO) included.
func TestGoAndBrowserEnviron(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u",
		"GOOGLE_API_KEY=g-secret", "OPENAI_API_KEY=sk-other", "CORP_TOKEN=t0k3n",
		"GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0", "CC=clang", "GIT_SSH_COMMAND=ssh -i k",
		"HTTPS_PROXY=http://proxy", "XDG_CACHE_HOME=/c",
		"DISPLAY=:0", "XDG_RUNTIME_DIR=/run/user/1", "DBUS_SESSION_BUS_ADDRESS=unix:path=/b",
	}
	goEnv := []string{"PATH=/usr/bin", "HOME=/home/u", "GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0", "CC=clang", "GIT_SSH_COMMAND=ssh -i k", "HTTPS_PROXY=http://proxy", "XDG_CACHE_HOME=/c"}
	if got := secret.GoEnviron(environ); !slices.Equal(got, goEnv) {
		t.Errorf("GoEnviron =\n%q\nwant\n%q", got, goEnv)
	}
	browser := []string{"PATH=/usr/bin", "HOME=/home/u", "XDG_CACHE_HOME=/c", "DISPLAY=:0", "XDG_RUNTIME_DIR=/run/user/1", "DBUS_SESSION_BUS_ADDRESS=unix:path=/b"}
	if got := secret.BrowserEnviron(environ); !slices.Equal(got, browser) {
		t.Errorf("BrowserEnviron =\n%q\nwant\n%q", got, browser)
	}
}
