package media

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
)

// pagedPDF is a PDF of n pages, its page tree written as text, or inside
// a compressed object stream as PDF 1.5 writers do.
func pagedPDF(n int, compressed bool) []byte {
	var objs []string
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", i+3)
	}
	tree := fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	var pages []string
	for range n {
		pages = append(pages, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << >> >>")
	}
	if !compressed {
		objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>", tree)
		objs = append(objs, pages...)
	} else {
		var inner bytes.Buffer
		zw := zlib.NewWriter(&inner)
		fmt.Fprintf(zw, "%s\n%s\n%s", "<< /Type /Catalog /Pages 2 0 R >>", tree, strings.Join(pages, "\n"))
		zw.Close()
		objs = append(objs, fmt.Sprintf("<< /Type /ObjStm /N %d /First 0 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", n+2, inner.Len(), inner.Bytes()))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	for i, o := range objs {
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	b.WriteString("trailer\n<< /Root 1 0 R >>\n%%EOF\n")
	return b.Bytes()
}

func TestPDFPages(t *testing.T) {
	t.Parallel()
	// A file updated in place: its first tree had 150 pages, the one in
	// force 90.
	updated := append(pagedPDF(150, false), []byte("3 0 obj\n<< /Type /Pages /Kids [] /Count 90 >>\nendobj\n")...)
	tests := []struct {
		name string
		data []byte
		want int
	}{
		{"one page", pdfBytes(), 1},
		{"100 pages", pagedPDF(100, false), 100},
		{"101 pages", pagedPDF(101, false), 101},
		{"101 pages in an object stream", pagedPDF(101, true), 101},
		{"updated in place", updated, 90},
		{"a tree without a root count", []byte("%PDF-1.4\n<< /Type /Page >> << /Type /Page >>"), 2},
		{"not a PDF", []byte("hello"), 0},
		{"nested dictionaries", []byte("<< /Type /Pages /Resources << /X << >> >> /Count 7 >>"), 7},
	}
	for _, tt := range tests {
		if got := pdfPages(tt.data); got != tt.want {
			t.Errorf("%s: %d pages, want %d", tt.name, got, tt.want)
		}
	}
}

func FuzzPDFPages(f *testing.F) {
	f.Add(pdfBytes())
	f.Add(pagedPDF(3, false))
	f.Add(pagedPDF(3, true))
	f.Add([]byte("<< /Type /Pages << >> >> >> << /Count 1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if n := pdfPages(data); n < 0 {
			t.Fatalf("%d pages", n)
		}
	})
}
