package mcpauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/oauth2"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// TokensDirName is the directory of the user's config directory that
// holds the tokens.
const TokensDirName = "tokens"

// Store keeps the tokens of the servers a person logged in to, in the
// user's config directory: one file per server, named by the SHA-256 of
// its URL, readable by the user alone (0600, in a directory of 0700). One
// file per server keeps two kesoku processes that refresh the tokens of
// different servers from losing each other's.
type Store struct {
	// Dir is where the files are: $XDG_CONFIG_HOME/kesoku/tokens. ""
	// keeps nothing: every run logs in again.
	Dir string
}

// StoreIn returns the store of the user's config directory userDir.
func StoreIn(userDir string) *Store {
	if userDir == "" {
		return &Store{}
	}
	return &Store{Dir: filepath.Join(userDir, TokensDirName)}
}

// Saved is what is kept of a login: the token, and what refreshing it
// takes (the client and the token endpoint it was granted by).
type Saved struct {
	// URL is the MCP server's: the key of the file.
	URL          string `json:"url"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	TokenURL     string `json:"token_url"`
	// AuthStyle is how the client authenticates at the token endpoint
	// (oauth2.AuthStyle: 0 auto, 1 in the form, 2 in a header).
	AuthStyle int `json:"auth_style,omitempty"`
	// Scopes were granted; Wanted were asked for by the server since
	// (a step-up that took a login), for the next login to ask too.
	Scopes []string `json:"scopes,omitempty"`
	Wanted []string `json:"wanted_scopes,omitempty"`

	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	SavedAt      time.Time `json:"saved_at"`
}

func (s *Saved) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: s.AccessToken, TokenType: s.TokenType, RefreshToken: s.RefreshToken, Expiry: s.Expiry}
}

func (s *Saved) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     s.ClientID,
		ClientSecret: s.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: s.TokenURL, AuthStyle: oauth2.AuthStyle(s.AuthStyle)},
	}
}

func (st *Store) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(st.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Load returns what is kept for the server at url, nil when nothing is
// (or the store keeps nothing). A damaged file keeps nothing: the next
// login rewrites it.
func (st *Store) Load(url string) (*Saved, error) {
	if st == nil || st.Dir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(st.path(url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the tokens: %w", err)
	}
	var s Saved
	if json.Unmarshal(data, &s) != nil || s.URL != url || s.AccessToken == "" {
		return nil, nil
	}
	return &s, nil
}

// Save keeps s for the server at s.URL, replacing what was kept.
func (st *Store) Save(s *Saved) error {
	if st == nil || st.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("keep the tokens: %w", err)
	}
	// A directory made before, more open than this, is closed to others:
	// it holds secrets.
	if err := os.Chmod(st.Dir, 0o700); err != nil {
		return fmt.Errorf("keep the tokens: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(st.path(s.URL), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("keep the tokens: %w", err)
	}
	return nil
}

// Forget removes what is kept for the server at url, reporting whether
// there was something.
func (st *Store) Forget(url string) (bool, error) {
	if st == nil || st.Dir == "" {
		return false, nil
	}
	removed, err := atomicfile.Remove(st.path(url))
	if err != nil {
		return false, fmt.Errorf("forget the tokens: %w", err)
	}
	return removed, nil
}
