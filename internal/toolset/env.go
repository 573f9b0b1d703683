package toolset

import (
	"context"

	"github.com/kesoku/kesoku/internal/workspace"
)

// Model is the active model, as kesoku's own tools see it (Env). The
// concrete value is the agent's provider client; tools that need more than
// its name (analyze_media) assert it to the interface they need.
type Model interface {
	// ModelName is the model's name as the user gave it.
	ModelName() string
}

// Env is what kesoku's own tools are given beside the ToolContext, in the
// call's context: what a tool author's tools have no use for.
type Env struct {
	// Model is the active model, nil when there is none.
	Model Model
	// Protected are kesoku's own files and directories, which tools may
	// read but never write: the config files in use, the file the records
	// go to, a session's transcript. The built-in file tools refuse to
	// write them.
	Protected []workspace.Protected
}

type envKey struct{}

// WithEnv returns ctx carrying env, for the tools called under it.
func WithEnv(ctx context.Context, env *Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvOf returns the Env that ctx carries; an empty one when none.
func EnvOf(ctx context.Context) *Env {
	if ctx != nil {
		if env, ok := ctx.Value(envKey{}).(*Env); ok {
			return env
		}
	}
	return &Env{}
}
