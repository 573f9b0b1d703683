package mcpauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// registrationMethods are the token endpoint's authentication methods a
// dynamically registered client asks for, the one it prefers first. A
// public client (none) first: kesoku runs on its user's machine, where a
// secret is no better kept than the tokens, and the code grant is held by
// PKCE; then the methods of a client with a secret, the form before the
// header, as OAuth 2.1 prefers.
var registrationMethods = []string{"none", "client_secret_post", "client_secret_basic"}

// registrar carries a login's dynamic client registration through, so
// that the client registered is one the token endpoint takes. The SDK's
// handler asks for no token_endpoint_auth_method, which RFC 7591 then
// takes to be client_secret_basic, and reads the method from the answer
// alone, taking Basic when it names none: an authorization server that
// takes no Basic (the TypeScript SDK's mcpAuthRouter takes the form and
// none) registers a client that can never get a token. So the
// registration asks for a method the server's metadata lists, and an
// answer that names none is taken to have granted the one asked for.
type registrar struct {
	next http.RoundTripper

	mu sync.Mutex
	// endpoint and methods are the registration endpoint and the
	// token endpoint's methods of the last metadata seen.
	endpoint string
	methods  []string
	listed   bool // whether the metadata listed methods at all
}

func (r *registrar) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && r.isRegistration(req) {
		return r.register(req)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !isMetadataPath(req.URL.Path) {
		return resp, err
	}
	body, rerr := readBack(resp)
	if rerr != nil {
		return resp, nil
	}
	var meta struct {
		RegistrationEndpoint string   `json:"registration_endpoint"`
		Methods              []string `json:"token_endpoint_auth_methods_supported"`
	}
	if json.Unmarshal(body, &meta) == nil && meta.RegistrationEndpoint != "" {
		r.mu.Lock()
		r.endpoint, r.methods, r.listed = meta.RegistrationEndpoint, meta.Methods, meta.Methods != nil
		r.mu.Unlock()
	}
	return resp, nil
}

// maxMetadata bounds an authorization server's metadata document.
const maxMetadata = 1 << 20

// isMetadataPath reports whether path is where RFC 8414 or OpenID
// Connect Discovery put an authorization server's metadata.
func isMetadataPath(path string) bool {
	return strings.HasPrefix(path, "/.well-known/oauth-authorization-server") ||
		strings.Contains(path, "/.well-known/openid-configuration")
}

func (r *registrar) isRegistration(req *http.Request) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.endpoint != "" && req.URL.String() == r.endpoint
}

// method is the method to ask for: the first of registrationMethods the
// server lists; "" when it lists none of them, or lists nothing (RFC 8414:
// then it takes client_secret_basic, the registration's own default).
func (r *registrar) method() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.listed {
		return ""
	}
	for _, m := range registrationMethods {
		if slices.Contains(r.methods, m) {
			return m
		}
	}
	return ""
}

// register sends the registration asking for the method, and reads the
// answer as granting it when it names none.
func (r *registrar) register(req *http.Request) (*http.Response, error) {
	want := r.method()
	if want == "" || req.Body == nil {
		return r.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var meta map[string]any
	if err := json.Unmarshal(body, &meta); err != nil {
		return nil, err
	}
	if _, asked := meta["token_endpoint_auth_method"]; !asked {
		meta["token_endpoint_auth_method"] = want
	}
	asked, _ := meta["token_endpoint_auth_method"].(string)
	if body, err = json.Marshal(meta); err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	resp, err := r.next.RoundTrip(out)
	if err != nil || resp.StatusCode/100 != 2 {
		return resp, err
	}
	answer, rerr := readBack(resp)
	if rerr != nil {
		return resp, nil
	}
	var got map[string]json.RawMessage
	if json.Unmarshal(answer, &got) != nil {
		return resp, nil
	}
	if m, named := got["token_endpoint_auth_method"]; named && string(m) != `""` && string(m) != "null" {
		return resp, nil
	}
	got["token_endpoint_auth_method"], _ = json.Marshal(asked)
	if answer, err = json.Marshal(got); err != nil {
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	resp.ContentLength = int64(len(answer))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// readBack reads a response's body (up to maxMetadata) and puts what it
// read back, for the SDK to read in its turn.
func readBack(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}
