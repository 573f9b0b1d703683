// Package origin is the rule that keeps a secret to the origin it was
// written for.
//
// A secret is a provider's API key, or the headers of an MCP server's
// entry; an origin is a scheme, host and port, as browsers compare them.
//
// Go's http.Client drops Authorization on a redirect to another host, but
// not on one to another port or from https to http of the same host, and
// never drops the other headers a key travels in (x-api-key,
// x-goog-api-key, an entry's own). A client that carries a secret follows
// a redirect only within its origin, by Redirects.
package origin

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// Of is the origin of u: its scheme and host in lower case and its port,
// the scheme's default written out ("https://api.example.com:443").
func Of(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// Show is an origin as Of writes it, shown to a person: without the
// port when it is its scheme's default.
func Show(origin string) string {
	scheme, _, _ := strings.Cut(origin, "://")
	if port := defaultPort(scheme); port != "" {
		return strings.TrimSuffix(origin, ":"+port)
	}
	return origin
}

func defaultPort(scheme string) string {
	switch scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// Redirects is the CheckRedirect of an http.Client whose requests carry a
// secret for the origin home (as Of writes it): a redirect within home is
// followed, ten at most; one to another origin is refused with the error
// refuse makes of its target, and nothing is sent there.
func Redirects(home string, refuse func(to *url.URL) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if Of(req.URL) != home {
			return refuse(req.URL)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}
