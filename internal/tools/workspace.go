package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"
)

// openWorkspace opens the workspace of the call: its AWD (the current
// directory when the call has none), staging, and kesoku's own files that
// no tool may write (in ctx, toolset.Env). It is opened per call, not
// kept, because each call may come from a different session.
func openWorkspace(ctx context.Context, tc *registry.ToolContext) (*workspace.Workspace, error) {
	protected := toolset.EnvOf(ctx).Protected
	if tc == nil {
		return workspace.New("", "", protected...)
	}
	return workspace.New(tc.AWD, tc.Staging, protected...)
}

// checkPath is the Precheck of a tool whose path argument names a place
// in the workspace: a path that, as written, leads outside the working
// directory and staging is refused before the call, in the words the call
// would refuse it with.
func checkPath(tc *registry.ToolContext, args map[string]any) error {
	path, ok := args["path"].(string)
	if !ok || path == "" {
		return nil // absent, the default; or no string, which validation says
	}
	// Confinement alone: the files no tool writes are refused as a call
	// writes, and a precheck only looks.
	ws, err := openWorkspace(context.Background(), tc)
	if err != nil {
		return nil // the call says what is wrong with the workspace
	}
	defer ws.Close()
	if err := ws.Check(path); err != nil {
		return registry.InvalidArg("path", err)
	}
	return nil
}

// locate resolves the path argument arg, turning a refusal into an invalid
// argument and a missing file into an error that suggests a near name.
func locate(ws *workspace.Workspace, arg, name string) (workspace.Location, error) {
	loc, err := ws.Locate(name)
	if err != nil {
		return loc, pathArgErr(ws, arg, name, err)
	}
	return loc, nil
}

// pathArgErr classifies err about the path argument arg: a refusal is
// the caller's invalid argument; anything else is the tool's failure, with
// a "did you mean" when a file is missing and a sibling's name is close.
func pathArgErr(ws *workspace.Workspace, arg, name string, err error) error {
	if workspace.IsRefusal(err) {
		return registry.InvalidArg(arg, err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if s := suggestSibling(ws, name); s != "" {
			return fmt.Errorf("%w (did you mean %q?)", err, s)
		}
	}
	return err
}

// suggestSibling returns the path of an entry of name's directory whose
// name is close to name's last element, or "".
func suggestSibling(ws *workspace.Workspace, name string) string {
	dir, base := filepath.Split(filepath.Clean(name))
	if base == "" || base == "." || base == ".." {
		return ""
	}
	if dir == "" {
		dir = "."
	}
	loc, err := ws.Locate(dir)
	if err != nil {
		return ""
	}
	entries, err := loc.ReadDir()
	if err != nil {
		return ""
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	s := english.Suggest(base, names)
	if s == "" {
		return ""
	}
	return loc.Join(s).Display()
}
