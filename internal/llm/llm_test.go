package llm

import (
	"testing"
)

func TestBlobBareMIME(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"image/png":                  "image/png",
		"text/plain; charset=utf-8":  "text/plain",
		"text/markdown ;charset=x":   "text/markdown",
		"application/pdf;version=17": "application/pdf",
		"":                           "",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			if got := (&Blob{MIMEType: in}).BareMIME(); got != want {
				t.Errorf("BareMIME(%q) = %q, want %q", in, got, want)
			}
		})
	}
}
