package secret

import (
	"runtime"
	"slices"
	"strings"
)

// base are the variables of kesoku's environment that every program it
// starts gets, as they are: what a program needs to run at all (find its
// programs and its home, speak the user's language, write a temporary
// file, know its terminal and its time zone, reach a TLS server through
// the system's certificates). The MCP SDKs give their stdio servers
// much the same (HOME, LOGNAME, PATH, SHELL, TERM, USER).
var base = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "TZ",
	"TMPDIR", "TERM", "COLORTERM", "NO_COLOR",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
}

// baseWindows are those Windows needs as well: a program there cannot
// start without SYSTEMROOT, nor find its profile without the others.
var baseWindows = []string{
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT",
	"TEMP", "TMP", "USERNAME", "USERPROFILE", "HOMEDRIVE", "HOMEPATH",
	"APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
	"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS",
}

// BaseNames are the names of the variables every program kesoku starts
// gets from kesoku's environment, with the LC_ variables of the locale.
func BaseNames() []string { return BaseNamesOf(runtime.GOOS) }

// BaseNamesOf are BaseNames on the system goos names.
func BaseNamesOf(goos string) []string {
	names := append([]string(nil), base...)
	if goos == "windows" {
		names = append(names, baseWindows...)
	}
	return names
}

// isBase reports whether name is one of the base variables.
func isBase(name string) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	for _, b := range BaseNames() {
		// Windows spells its names in any case.
		if name == b || runtime.GOOS == "windows" && strings.EqualFold(name, b) {
			return true
		}
	}
	return false
}

// Environ is the environment of a program kesoku starts (a command tool,
// a stdio MCP server, a hook), made of environ (kesoku's own, os.Environ)
// and own (the KEY=value pairs its declaration gives, which win): the
// base variables (BaseNames), and nothing else of kesoku's — no
// provider's key, no other server's header, no token — so that a program
// that prints its environment, or is not to be trusted with it, holds no
// secret it was not given. A base variable whose value is one of r's
// secrets is left out too.
func Environ(environ, own []string, r *Redactor) []string {
	return environOf(environ, own, r, nil)
}

// goCommand are the variables of the go command's environment (go help
// environment) that kesoku gen's go command gets besides the base ones,
// and those of the programs it runs: the C toolchain, git for a module
// fetched from its repository, a proxy to reach GOPROXY. Named one by
// one, not by the prefix GO, which GOOGLE_API_KEY has.
var goCommand = []string{
	"GO111MODULE", "GOAMD64", "GOARCH", "GOARM", "GOARM64", "GO386", "GOAUTH",
	"GOBIN", "GOCACHE", "GOCACHEPROG", "GODEBUG", "GOENV", "GOEXPERIMENT",
	"GOFIPS140", "GOFLAGS", "GOGC", "GOINSECURE", "GOMAXPROCS", "GOMEMLIMIT",
	"GOMIPS", "GOMIPS64", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOOS",
	"GOPATH", "GOPPC64", "GOPRIVATE", "GOPROXY", "GORISCV64", "GOROOT",
	"GOSUMDB", "GOTELEMETRY", "GOTELEMETRYDIR", "GOTMPDIR", "GOTOOLCHAIN",
	"GOTRACEBACK", "GOVCS", "GOWASM", "GOWORK", "GCCGO", "GCCGOTOOLDIR",
	"AR", "CC", "CXX", "FC", "PKG_CONFIG",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"NETRC", "SSH_AUTH_SOCK",
}

// GoEnviron is the environment of the go command kesoku gen runs: the
// base variables and what the go command reads of its own (goCommand,
// the CGO_ and GIT_ variables), none of kesoku's secrets.
func GoEnviron(environ []string) []string {
	return environOf(environ, nil, nil, func(name string) bool {
		return slices.Contains(goCommand, name) || strings.HasPrefix(name, "CGO_") || strings.HasPrefix(name, "GIT_")
	})
}

// browser are the variables a person's browser (and the opener that
// finds it: xdg-open, wslview) needs besides the base ones: the display
// and the desktop session it opens on.
var browser = []string{
	"BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
	"DBUS_SESSION_BUS_ADDRESS", "DESKTOP_SESSION", "KDE_FULL_SESSION",
	"KDE_SESSION_VERSION", "GNOME_DESKTOP_SESSION_ID", "WSL_DISTRO_NAME",
	"WSL_INTEROP",
}

// BrowserEnviron is the environment of the browser opened for an OAuth
// login: the base variables and the display's (browser, the XDG_
// variables), none of kesoku's secrets.
func BrowserEnviron(environ []string) []string {
	return environOf(environ, nil, nil, func(name string) bool {
		return slices.Contains(browser, name) || strings.HasPrefix(name, "XDG_")
	})
}

// environOf is Environ, with the variables also says besides the base
// ones.
func environOf(environ, own []string, r *Redactor, also func(name string) bool) []string {
	env := make([]string, 0, len(base)+len(own))
	mine := make(map[string]bool, len(own))
	for _, kv := range own {
		name, _, _ := strings.Cut(kv, "=")
		mine[name] = true
	}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || mine[name] || !isBase(name) && (also == nil || !also(name)) || r.Has(value) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, own...)
}
