package tracing

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/tracing/otlptest"
)

// exportOne starts the SDK as the OTEL_* variables say, ends one span,
// and says what was lost.
func exportOne(t *testing.T) Lost {
	t.Helper()
	c, err := FromEnv(os.Getenv)
	if err != nil || !c.On {
		t.Fatalf("FromEnv: %+v, %v", c, err)
	}
	p, err := Start(context.Background(), c, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.Tracer().Root(context.Background(), "run")
	s.End()
	return p.Shutdown(context.Background())
}

// TestExportRefusesARedirectToAnotherOrigin: a collector that redirects
// to another origin (here another port of the same host) does not get
// the exporter's headers, a collector's token among them, sent there:
// the export fails, counted lost, and the run ends.
func TestExportRefusesARedirectToAnotherOrigin(t *testing.T) {
	other := otlptest.Start()
	defer other.Close()
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL()+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=sk-collector-token")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-honeycomb-team=hc-token")

	got := exportOne(t)
	if h := other.Headers(); len(h) != 0 {
		t.Fatalf("the other origin was sent %d requests, headers %v", len(h), h)
	}
	if got.Ended != 1 || got.Lost != 1 || !strings.Contains(got.Err, "another origin") {
		t.Errorf("lost %+v, want the span lost, refused for another origin", got)
	}
}

// TestExportFollowsARedirectWithinItsOrigin: a redirect to another path
// of the same origin is still followed.
func TestExportFollowsARedirectWithinItsOrigin(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" {
			http.Redirect(w, r, srv.URL+"/moved/v1/traces", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("api-key") != "sk-collector-token" {
			http.Error(w, "no key", http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=sk-collector-token")
	if got := exportOne(t); got != (Lost{Ended: 1}) {
		t.Errorf("lost %+v, want none of 1", got)
	}
}

// TestExportTrustsTheCertificateFromEnv: the exporter's client still
// trusts the collector's certificate OTEL_EXPORTER_OTLP_CERTIFICATE
// names, and nothing else.
func TestExportTrustsTheCertificateFromEnv(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	// The handshake refused below is expected: not on the test's log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	cert := filepath.Join(t.TempDir(), "collector.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)

	// Without the certificate, the collector is not trusted.
	if got := exportOne(t); got.Lost != 1 {
		t.Errorf("without the certificate: lost %+v, want the span lost", got)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", cert)
	if got := exportOne(t); got != (Lost{Ended: 1}) {
		t.Errorf("with the certificate: lost %+v, want none of 1", got)
	}
}

// TestExportPresentsTheClientCertificateFromEnv: a collector that asks
// for a client certificate gets the one OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE
// and OTEL_EXPORTER_OTLP_CLIENT_KEY name.
func TestExportPresentsTheClientCertificateFromEnv(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kesoku"},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	pool := x509.NewCertPool()
	pool.AddCert(client)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", write("collector.pem", "CERTIFICATE", srv.Certificate().Raw))

	// Without the client certificate, the collector refuses kesoku.
	if got := exportOne(t); got.Lost != 1 {
		t.Errorf("without the client certificate: lost %+v, want the span lost", got)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", write("client.pem", "CERTIFICATE", der))
	t.Setenv("OTEL_EXPORTER_OTLP_CLIENT_KEY", write("client.key", "PRIVATE KEY", keyDER))
	if got := exportOne(t); got != (Lost{Ended: 1}) {
		t.Errorf("with the client certificate: lost %+v, want none of 1", got)
	}
}

// TestExportClientFromEnv: the client takes its timeout from the
// variables, the traces' own over the general one, as the exporter
// would.
func TestExportClientFromEnv(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500"}, 2500 * time.Millisecond},
		{map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": " 300 "}, 300 * time.Millisecond},
		{map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, 10 * time.Second},
	} {
		if got := exportClient(env(tt.env)).Timeout; got != tt.want {
			t.Errorf("%v: timeout %v, want %v", tt.env, got, tt.want)
		}
	}
}
