package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// approvedProject writes a consequential kesoku.yaml in dir/name, with a
// file of servers that it names, and approves it; it returns the
// project's directory.
func approvedProject(t *testing.T, userDir, dir, name string) string {
	t.Helper()
	proj := filepath.Join(dir, name)
	must(t, os.MkdirAll(proj, 0o755))
	must(t, os.WriteFile(filepath.Join(proj, FileName), []byte("output: records.jsonl\nmcp-config: servers.json\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(proj, "servers.json"), []byte(`{"mcpServers": {"fs": {"command": "npx"}}}`), 0o644))
	f, err := ReadFile(filepath.Join(proj, FileName), Found, keys)
	must(t, err)
	must(t, ApprovalsOf(userDir).Approve(f))
	if _, err := Load(Options{AWD: proj, UserDir: userDir, Keys: keys}); err != nil {
		t.Fatalf("the approved project: %v", err)
	}
	return proj
}

// realTempDir is t.TempDir with its own links resolved (macOS's /var is
// a link), so that every link in a test is one the test made.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	return dir
}

// TestApprovalAtItsPlace: approval is of a file's bytes at the place it
// is found, where its relative paths and the working directory start. A
// symbolic link to an approved file, to its directory or to a directory
// above it borrows no approval; a link on the path that later leads
// elsewhere loses it.
func TestApprovalAtItsPlace(t *testing.T) {
	t.Parallel()
	userDir, root := t.TempDir(), realTempDir(t)
	proj := approvedProject(t, userDir, root, "proj")
	refused := func(t *testing.T, awd string) *UnapprovedError {
		t.Helper()
		_, err := Load(Options{AWD: awd, UserDir: userDir, Keys: keys})
		var ue *UnapprovedError
		if !errors.As(err, &ue) {
			t.Fatalf("Load in %s: error = %v, want an *UnapprovedError", awd, err)
		}
		return ue
	}

	t.Run("a link to the file", func(t *testing.T) {
		evil := filepath.Join(root, "evil")
		must(t, os.Mkdir(evil, 0o755))
		must(t, os.Symlink(filepath.Join("..", "proj", FileName), filepath.Join(evil, FileName)))
		ue := refused(t, evil)
		if want := "It leads to " + filepath.Join(proj, FileName) + " through a symbolic link"; !strings.Contains(ue.Error(), want) {
			t.Errorf("error = %v, want it to say %q", ue, want)
		}
	})
	t.Run("a link to the directory", func(t *testing.T) {
		link := filepath.Join(root, "linkdir")
		must(t, os.Symlink("proj", link))
		refused(t, link)
	})
	t.Run("a link in a parent directory", func(t *testing.T) {
		alias := filepath.Join(root, "alias")
		must(t, os.Symlink(root, alias))
		refused(t, filepath.Join(alias, "proj"))
	})
	t.Run("a link on the path that leads elsewhere since", func(t *testing.T) {
		// cur -> one is approved as cur/kesoku.yaml; then cur -> two,
		// whose kesoku.yaml has the same bytes but another directory.
		dir := realTempDir(t)
		one := approvedProject(t, userDir, dir, "one")
		two := filepath.Join(dir, "two")
		must(t, os.Mkdir(two, 0o755))
		for _, name := range []string{FileName, "servers.json"} {
			data, err := os.ReadFile(filepath.Join(one, name))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(two, name), data, 0o644))
		}
		cur := filepath.Join(dir, "cur")
		must(t, os.Symlink("one", cur))
		f, err := ReadFile(filepath.Join(cur, FileName), Found, keys)
		must(t, err)
		must(t, ApprovalsOf(userDir).Approve(f))
		if _, err := Load(Options{AWD: cur, UserDir: userDir, Keys: keys}); err != nil {
			t.Fatalf("approved through its link: %v", err)
		}
		must(t, os.Remove(cur))
		must(t, os.Symlink("two", cur))
		ue := refused(t, cur)
		if want := "it was approved in " + one; !strings.Contains(ue.Error(), want) {
			t.Errorf("error = %v, want it to say %q", ue, want)
		}
	})
	t.Run("the file itself a link, approved where it is found", func(t *testing.T) {
		// What it means is decided where it is found: the bytes it leads
		// to are what is hashed.
		dir := filepath.Join(root, "self")
		must(t, os.Mkdir(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "real.yaml"), []byte("output: x.jsonl\n"), 0o644))
		must(t, os.Symlink("real.yaml", filepath.Join(dir, FileName)))
		f, err := ReadFile(filepath.Join(dir, FileName), Found, keys)
		must(t, err)
		must(t, ApprovalsOf(userDir).Approve(f))
		if _, err := Load(Options{AWD: dir, UserDir: userDir, Keys: keys}); err != nil {
			t.Fatalf("approved at its own place: %v", err)
		}
		must(t, os.WriteFile(filepath.Join(dir, "real.yaml"), []byte("output: y.jsonl\n"), 0o644))
		refused(t, dir)
	})
}

// TestApprovalCoversNamedFiles: a file that an approved config names
// (mcp-config), whose content starts programs, is approved with it: a
// change to it needs approval again, and what is used is the content
// that was approved, however the file changes after it was checked.
func TestApprovalCoversNamedFiles(t *testing.T) {
	t.Parallel()
	userDir := t.TempDir()
	proj := approvedProject(t, userDir, t.TempDir(), "proj")
	servers := filepath.Join(proj, "servers.json")
	opts := Options{AWD: proj, UserDir: userDir, Keys: keys}

	c, err := Load(opts)
	must(t, err)
	must(t, os.WriteFile(servers, []byte(`{"mcpServers": {"fs": {"command": "sh", "args": ["-c", "evil"]}}}`), 0o644))
	f, err := c.ReadServers(servers)
	must(t, err)
	if got := f.Sum; got != c.Files[0].Named[0].Sum {
		t.Errorf("ReadServers read the file as it is now (sha256 %s), not as approved", got)
	}

	_, err = Load(opts)
	var ue *UnapprovedError
	if !errors.As(err, &ue) {
		t.Fatalf("a named file changed: error = %v, want an *UnapprovedError", err)
	}
	if want := servers + ", which its mcp-config names, changed since it was approved on "; !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want it to say %q", err, want)
	}

	// Approved again, with the file as it is now.
	f, err = ReadFile(filepath.Join(proj, FileName), Found, keys)
	must(t, err)
	must(t, ApprovalsOf(userDir).Approve(f))
	if _, err := Load(opts); err != nil {
		t.Fatalf("approved again: %v", err)
	}

	// A named file that is not there is an error at the setting.
	must(t, os.Remove(servers))
	_, err = Load(opts)
	var ce *Error
	if !errors.As(err, &ce) || ce.Pos.Line != 2 || !strings.Contains(err.Error(), "mcp-config: "+servers+": no such file or directory") {
		t.Errorf("a named file that is not there: error = %v, want a *config.Error at line 2 naming it", err)
	}
}

// TestEveryConsequentialKeyNeedsApproval: a found kesoku.yaml that sets
// any key with a consequence (where data, reports, requests or keys go,
// what starts, what models cost, which calls run) is refused until
// approved, each key alone. A key given a consequence later needs a value
// here, or this test fails.
func TestEveryConsequentialKeyNeedsApproval(t *testing.T) {
	t.Parallel()
	values := map[string]string{
		"output":      "output: out.jsonl\n",
		"junit":       "junit: report.xml\n",
		"staging":     "staging: inputs\n",
		"base-url":    "base-url: http://proxy.example\n",
		"mcp-config":  "mcp-config: servers.json\n",
		"http":        "http: 127.0.0.1:8080\n",
		"token-env":   "token-env: MY_TOKEN\n",
		"tools":       "tools:\n  wc: {command: [wc]}\n",
		"mcpServers":  "mcpServers: {fs: {command: npx}}\n",
		"hooks":       "hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: log.sh}]\n",
		"prices":      "prices:\n  m: {input: 0.5, output: 1.5}\n",
		"permissions": "permissions:\n  allow: [read_file]\n",
	}
	var flags []string
	for key, r := range rules {
		if r.consequential == "" {
			continue
		}
		if !r.section {
			flags = append(flags, key)
		}
		if _, ok := values[key]; !ok {
			t.Errorf("%s needs approval, and this test gives it no value: add one", key)
		}
	}
	for key, text := range values {
		if !NeedsApproval(key) {
			t.Errorf("%s needs no approval", key)
			continue
		}
		awd, userDir := t.TempDir(), t.TempDir()
		must(t, os.WriteFile(filepath.Join(awd, "servers.json"), []byte(`{"mcpServers": {}}`), 0o644))
		must(t, os.WriteFile(filepath.Join(awd, FileName), []byte(text), 0o644))
		_, err := Load(Options{AWD: awd, UserDir: userDir, Keys: flags})
		var ue *UnapprovedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), key+" ("+Consequence(key)+")") {
			t.Errorf("a found file setting %s: error = %v, want an *UnapprovedError naming it", key, err)
		}
	}
}
