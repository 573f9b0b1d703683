package mcpauth

import (
	"fmt"
	"strings"
)

// LoginRequiredError is a server that needs a person to log in, in a run
// where no one can: there is no terminal and no $BROWSER. Nothing was
// registered with the authorization server, and nothing waited.
type LoginRequiredError struct {
	// Server names the server in messages; Hint says how to log in
	// ahead of the run (the command that does it), "" when not known.
	Server, Hint string
	// Scopes are what the server asked for, when it was a step-up.
	Scopes []string
}

func (e *LoginRequiredError) Error() string {
	what := "needs a login"
	if len(e.Scopes) > 0 {
		what = fmt.Sprintf("asks for the scope %s, which needs a login", strings.Join(e.Scopes, " "))
	}
	msg := fmt.Sprintf("%s %s, and no one can log in from this run (no terminal, no $BROWSER)", e.Server, what)
	if e.Hint != "" {
		msg += ": run " + e.Hint + " first"
	}
	return msg
}

// ScopeError is a server that refused a request for want of scopes that
// were asked for already (a step-up is tried once), or that the
// authorization server would not grant.
type ScopeError struct {
	Server string
	// Scopes are what the server asks for; Asked what the last grant
	// asked for; Granted, when it is the step-up that fell short, what
	// it granted.
	Scopes, Asked, Granted []string
}

func (e *ScopeError) Error() string {
	if e.Granted != nil {
		return fmt.Sprintf("%s asks for the scope %s, and the authorization server granted %s", e.Server, strings.Join(e.Scopes, " "), orNone(e.Granted))
	}
	return fmt.Sprintf("%s refused the request for want of the scope %s, which the last authorization asked for already (%s): not asked again",
		e.Server, strings.Join(e.Scopes, " "), orNone(e.Asked))
}

func orNone(scopes []string) string {
	if len(scopes) == 0 {
		return "none"
	}
	return strings.Join(scopes, " ")
}

// ForbiddenError is a request the server refused with 403 for another
// reason than scopes: no token changes that.
type ForbiddenError struct {
	Server string
	// Said is what the answer's body says, its start.
	Said string
}

func (e *ForbiddenError) Error() string {
	msg := e.Server + " refused the request (403 Forbidden)"
	if e.Said != "" {
		msg += ": " + e.Said
	}
	return msg
}

// NoChallengeError is a 401 that names no way to authorize: no Bearer
// challenge in WWW-Authenticate, and no oauth in the server's entry.
type NoChallengeError struct{ Server string }

func (e *NoChallengeError) Error() string {
	return e.Server + " answered 401 Unauthorized and asked for no OAuth (no WWW-Authenticate: Bearer challenge): give it the headers it needs, or an oauth entry"
}

// Error is what Authorize returns when it fails: its message names the
// server and says what failed; the SDK's words around it say only which
// request met it. Unwrap reaches the typed errors (*LoginRequiredError,
// *ScopeError, ...).
type Error struct{ err error }

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }
