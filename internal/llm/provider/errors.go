package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The errors of Resolve are the user's to fix. They say what is wrong in
// the terms of a Config; the commands word them with their flags.

// ErrNoModel says a Config names no model.
var ErrNoModel = errors.New("no model given (e.g. gemini-2.5-flash)")

// Bound is one of a Config's time bounds.
type Bound int

// The bounds of a Config.
const (
	// BoundIdle is Config.IdleTimeout.
	BoundIdle Bound = iota + 1
	// BoundDeadline is Config.Deadline.
	BoundDeadline
)

// NegativeBoundError says a bound of a Config is below zero.
type NegativeBoundError struct {
	Bound Bound
	Value time.Duration
}

func (e *NegativeBoundError) Error() string {
	what, example := "the idle timeout", "2m"
	if e.Bound == BoundDeadline {
		what, example = "the API timeout", "1h"
	}
	return fmt.Sprintf("%s %v: want a duration above zero, e.g. %s", what, e.Value, example)
}

// ErrNotEndpoint is what a base URL is that no key can be sent to: not
// http or https, or without a host.
var ErrNotEndpoint = errors.New("want the http:// or https:// URL of the provider's API, e.g. https://proxy.example.com/v1")

// BaseURLError says a Config's base URL, or the one the environment
// variable Var gave in its place, is no URL a key can be sent to
// (ErrNotEndpoint).
type BaseURLError struct {
	URL string
	Var string
}

func (e *BaseURLError) Error() string {
	from := "base URL"
	if e.Var != "" {
		from = e.Var
	}
	return fmt.Sprintf("%s %q: %v", from, e.URL, ErrNotEndpoint)
}

func (e *BaseURLError) Unwrap() error { return ErrNotEndpoint }

// UnknownProviderError says Config.Provider names no provider kesoku
// knows; Known are those it knows.
type UnknownProviderError struct {
	Name  string
	Known []string
}

func (e *UnknownProviderError) Error() string {
	return fmt.Sprintf("provider %q: want %s", e.Name, orList(e.Known))
}

// UnnamedProviderError says the model's name does not tell its provider,
// and the Config names none; Known are the providers to choose from.
type UnnamedProviderError struct {
	Model string
	Known []string
}

func (e *UnnamedProviderError) Error() string {
	return fmt.Sprintf("cannot tell the provider of model %q from its name: name the provider, %s", e.Model, orList(e.Known))
}

// NoKeyError says the environment holds no API key for the provider.
type NoKeyError struct {
	Provider string
	// Vars are the variables a key is read from, the first preferred.
	Vars []string
	// KeyOptional says that a server of one's own, at a base URL, needs
	// no key; BaseURLVar is the variable that gives that URL too, if any.
	KeyOptional bool
	BaseURLVar  string
}

func (e *NoKeyError) Error() string { return e.Words("the base URL") }

// Words is the error's text with baseURL the words for where a base URL
// is given.
func (e *NoKeyError) Words(baseURL string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no API key for %s: set %s", e.Provider, e.Vars[0])
	if len(e.Vars) > 1 {
		fmt.Fprintf(&b, " (or %s)", strings.Join(e.Vars[1:], ", "))
	}
	if e.KeyOptional {
		fmt.Fprintf(&b, ", or give %s of a server that needs none", baseURL)
		if e.BaseURLVar != "" {
			fmt.Fprintf(&b, " (or set %s)", e.BaseURLVar)
		}
	}
	return b.String()
}

// CassetteModelError says a cassette is replayed for another model than
// the one it was recorded with: none of its requests would match.
type CassetteModelError struct {
	// Path is the cassette's, Recorded the model in its header, Asked
	// the Config's.
	Path, Recorded, Asked string
}

func (e *CassetteModelError) Error() string {
	return fmt.Sprintf("cassette %s was recorded with the model %s, not %s: replay it with %s (or with no model named), or record it again", e.Path, e.Recorded, e.Asked, e.Recorded)
}
