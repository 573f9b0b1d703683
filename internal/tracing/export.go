package tracing

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/origin"
)

// OriginError says an export was not sent where the collector redirected
// it, because that is another origin than the endpoint's: the exporter's
// headers (a collector's token among them) go to the endpoint's origin
// alone. Nothing was sent there.
type OriginError struct {
	// Home is the endpoint's origin, To the origin redirected to.
	Home, To string
}

func (e *OriginError) Error() string {
	return fmt.Sprintf("the collector redirected to %s, another origin than %s: refused, so that the exporter's headers go to their own origin alone", e.To, e.Home)
}

// defaultExportTimeout is the exporter's own when no variable says.
const defaultExportTimeout = 10 * time.Second

// exportClient is the HTTP client of the OTLP exporter: it refuses a
// redirect to another origin than the one the export was sent to. Go's
// client would follow it with every header the exporter sets
// (OTEL_EXPORTER_OTLP_HEADERS), and dropping none of them.
//
// Why a client of kesoku's own: the exporter builds its client itself
// and lets nothing but a whole client replace it (WithHTTPClient), which
// then also replaces what the exporter would have put on its client: the
// timeout, the TLS configuration and the proxy. The endpoint, the
// headers, the compression, the protocol and insecure stay the
// exporter's, on its requests. So this client is built as the exporter
// builds its own (a transport as net/http's default, the proxy from the
// environment) from the same variables, read the same way: the traces'
// own over the general ones, a value that cannot be read ignored (the
// exporter, reading it too, reports it). A wrapper of the exporter's
// transport is not possible: it is not exported.
func exportClient(getenv func(string) string) *http.Client {
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
	}
	tr.TLSClientConfig = exportTLS(getenv)
	return &http.Client{
		Transport:     tr,
		Timeout:       exportTimeout(getenv),
		CheckRedirect: exportRedirects,
	}
}

// exportRedirects keeps a redirect within the origin the export was
// first sent to.
func exportRedirects(req *http.Request, via []*http.Request) error {
	home := origin.Of(via[0].URL)
	return origin.Redirects(home, func(to *url.URL) error {
		return &OriginError{Home: origin.Show(home), To: origin.Show(origin.Of(to))}
	})(req, via)
}

// otlpEnv is the values of OTEL_EXPORTER_OTLP_{name} and
// OTEL_EXPORTER_OTLP_TRACES_{name}, trimmed, in the order the exporter
// applies them: a later one that can be read wins.
func otlpEnv(getenv func(string) string, name string) []string {
	var vals []string
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + name, "OTEL_EXPORTER_OTLP_TRACES_" + name} {
		vals = append(vals, strings.TrimSpace(getenv(v)))
	}
	return vals
}

func exportTimeout(getenv func(string) string) time.Duration {
	d := defaultExportTimeout
	for _, v := range otlpEnv(getenv, "TIMEOUT") {
		if ms, err := strconv.Atoi(v); err == nil {
			d = time.Duration(ms) * time.Millisecond
		}
	}
	return d
}

// exportTLS is the TLS configuration the certificate variables ask for,
// nil when none does: the collector's CA (CERTIFICATE) and kesoku's
// client certificate and key (CLIENT_CERTIFICATE, CLIENT_KEY).
func exportTLS(getenv func(string) string) *tls.Config {
	c := &tls.Config{}
	for _, file := range otlpEnv(getenv, "CERTIFICATE") {
		if file == "" {
			continue
		}
		pem, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if pool := x509.NewCertPool(); pool.AppendCertsFromPEM(pem) {
			c.RootCAs = pool
		}
	}
	certs, keys := otlpEnv(getenv, "CLIENT_CERTIFICATE"), otlpEnv(getenv, "CLIENT_KEY")
	for i := range certs {
		if certs[i] == "" || keys[i] == "" {
			continue
		}
		cert, err := os.ReadFile(certs[i])
		if err != nil {
			continue
		}
		key, err := os.ReadFile(keys[i])
		if err != nil {
			continue
		}
		if pair, err := tls.X509KeyPair(cert, key); err == nil {
			c.Certificates = []tls.Certificate{pair}
		}
	}
	if c.RootCAs == nil && len(c.Certificates) == 0 {
		return nil
	}
	return c
}
