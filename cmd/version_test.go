package cmd

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine: the version line says the program's name and
// version, the revision of a build from a checkout and whether it had
// changes, and, in a program of one's own, kesoku's version.
func TestVersionLine(t *testing.T) {
	t.Parallel()
	vcs := func(rev string, modified bool) []debug.BuildSetting {
		m := "false"
		if modified {
			m = "true"
		}
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-30T12:00:00Z"}, {Key: "vcs.modified", Value: m}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	kesoku := debug.Module{Path: kesokuModule, Version: "v0.4.0"}
	for _, tt := range []struct {
		name    string
		info    *debug.BuildInfo
		stamped string
		want    string
	}{
		{"no build info", nil, "", "kesoku (devel)"},
		{"go install @v1.2.3", &debug.BuildInfo{Path: kesokuModule, Main: debug.Module{Path: kesokuModule, Version: "v1.2.3"}}, "", "kesoku v1.2.3"},
		{"a checkout", &debug.BuildInfo{Path: kesokuModule, Main: debug.Module{Path: kesokuModule, Version: "(devel)"}, Settings: vcs(rev, false)}, "", "kesoku (devel) 0123456789ab"},
		{"a checkout with changes", &debug.BuildInfo{Path: kesokuModule, Main: debug.Module{Path: kesokuModule, Version: "(devel)"}, Settings: vcs(rev, true)}, "", "kesoku (devel) 0123456789ab (modified)"},
		{"a version the toolchain made from the checkout", &debug.BuildInfo{Path: kesokuModule, Main: debug.Module{Path: kesokuModule, Version: "v1.2.4-0.20261130120000-0123456789ab+dirty"}, Settings: vcs(rev, true)}, "", "kesoku v1.2.4-0.20261130120000-0123456789ab+dirty"},
		{"a release build", &debug.BuildInfo{Path: kesokuModule, Main: debug.Module{Path: kesokuModule, Version: "(devel)"}, Settings: vcs(rev, false)}, "v2.0.0", "kesoku v2.0.0 0123456789ab"},
		{"a program of one's own", &debug.BuildInfo{Path: "example.com/mytools", Main: debug.Module{Path: "example.com/mytools", Version: "v0.2.0"}, Deps: []*debug.Module{&kesoku}}, "", "mytools v0.2.0 (kesoku v0.4.0)"},
		{"its main package deeper in its module", &debug.BuildInfo{Path: "example.com/x/cmd/agent", Main: debug.Module{Path: "example.com/x", Version: "(devel)"}, Deps: []*debug.Module{&kesoku}, Settings: vcs(rev, false)}, "", "agent (devel) 0123456789ab (kesoku v0.4.0)"},
		{"kesoku replaced by a directory", &debug.BuildInfo{Path: "example.com/mytools", Main: debug.Module{Path: "example.com/mytools", Version: "(devel)"},
			Deps: []*debug.Module{{Path: kesokuModule, Version: "v0.0.0", Replace: &debug.Module{Path: "../..", Version: "(devel)"}}}}, "", "mytools (devel) (kesoku v0.0.0 => ../..)"},
		{"kesoku replaced by another version", &debug.BuildInfo{Path: "example.com/mytools", Main: debug.Module{Path: "example.com/mytools", Version: "v1.0.0"},
			Deps: []*debug.Module{{Path: kesokuModule, Version: "v0.4.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.4.1"}}}}, "", "mytools v1.0.0 (kesoku v0.4.0 => example.com/fork v0.4.1)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := versionLine(describeBuild(tt.info, tt.stamped)); got != tt.want {
				t.Errorf("versionLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionFlag: kesoku --version prints what kesoku version does, and
// version --json the same in its fields.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	code, flag, stderr := runArgs("--version")
	if code != ExitOK || stderr != "" {
		t.Fatalf("--version: exit %d, stderr %q", code, stderr)
	}
	_, cmd, _ := runArgs("version")
	if flag != cmd || !strings.HasPrefix(flag, "kesoku ") || strings.Count(flag, "\n") != 1 {
		t.Errorf("--version printed %q, version %q", flag, cmd)
	}
	_, doc, _ := runArgs("version", "--json")
	var v buildVersion
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	if got := versionLine(v) + "\n"; got != cmd {
		t.Errorf("version --json says %q, version %q", got, cmd)
	}
	if v.Name != "kesoku" || v.Kesoku != "" {
		t.Errorf("version --json: name %q, kesoku %q", v.Name, v.Kesoku)
	}
}
