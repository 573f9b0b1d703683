// Package basic holds calculate_sum documented in Chinese and a few plain
// tools, for kesoku gen's tests and the benchmark of a generated Call.
package basic

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kesoku/kesoku/registry"
)

// CalculateSum 计算两个整数的和。
//
// Args:
//
//	a: 第一个整数。
//	b: 第二个整数。
//
//kesoku:tool
func CalculateSum(a, b int) int {
	return a + b
}

// Greet says hello to someone, in the style asked for.
//
// The greeting is plain text. It is meant for tests, e.g. of defaults.
//
// Args:
// name: who to greet.
// style: how to greet. Must be one of: plain, loud.
// Defaults to plain.
//
// Returns: the greeting.
//
//kesoku:tool name=say_hello
func Greet(name string, style string) string {
	if style == "loud" {
		return "HELLO, " + name + "!"
	}
	return "hello, " + name
}

// Sleep waits for a number of seconds, or until the call is cancelled.
//
// Args:
//
//	seconds: how long to wait, in seconds. Defaults to 0.05.
//
//kesoku:tool
func Sleep(ctx context.Context, seconds float64) error {
	t := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WhoAmI reports the session the call belongs to.
//
//kesoku:tool name=who_am_i
func WhoAmI(tc *registry.ToolContext) (string, error) {
	if tc == nil {
		return "", errors.New("no tool context")
	}
	return tc.SessionID, nil
}

// Touch marks a file as used. It returns nothing.
//
// Args:
//
//	path: the file, relative to the working directory.
//
//kesoku:tool writes
func Touch(path string) {
	mu.Lock()
	defer mu.Unlock()
	touched = append(touched, path)
}

// touched records Touch's calls, for the tests.
var (
	mu      sync.Mutex
	touched []string
)

// Touched returns the paths Touch was called with.
func Touched() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(touched)
}

// Wait waits for a number of seconds, at most ten: more is refused before
// the call, where it is checked.
//
// Args:
//
//	seconds: how long to wait.
//
//kesoku:tool check=checkWait
func Wait(ctx context.Context, seconds float64) error {
	return Sleep(ctx, seconds)
}

// checkWait is wait's Precheck.
func checkWait(_ *registry.ToolContext, args map[string]any) error {
	if s, ok := args["seconds"].(float64); ok && s > 10 {
		return registry.InvalidArg("seconds", errors.New("more than 10"))
	}
	return nil
}
