package media

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The media below are real files, made by the encoders of the standard
// library or written field by field, so that detection is tested on what
// users actually have rather than on magic numbers alone.

func testImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for y := range 16 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 16), 128, 255})
		}
	}
	return img
}

func pngBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := gif.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wavBytes is a tenth of a second of a 440 Hz tone: 16-bit mono PCM at
// 8 kHz in a RIFF/WAVE container, written field by field.
func wavBytes() []byte {
	const rate, samples = 8000, 800
	var pcm bytes.Buffer
	for i := range samples {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
		binary.Write(&pcm, binary.LittleEndian, v)
	}
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + pcm.Len()))
	b.WriteString("WAVE")
	b.WriteString("fmt ")
	le(uint32(16))       // chunk size
	le(uint16(1))        // PCM
	le(uint16(1))        // mono
	le(uint32(rate))     // sample rate
	le(uint32(rate * 2)) // byte rate
	le(uint16(2))        // block align
	le(uint16(16))       // bits per sample
	b.WriteString("data")
	le(uint32(pcm.Len()))
	b.Write(pcm.Bytes())
	return b.Bytes()
}

// pdfBytes is a one-page PDF saying "hello", with a correct xref table.
func pdfBytes() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length 39 >>\nstream\nBT /F1 24 Tf 20 40 Td (hello) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// mp4Bytes is the MP4 fixture shared with the command's scripts.
func mp4Bytes(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "media", "tiny.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mp3Bytes is two MPEG-1 Layer III frame headers (128 kbit/s, 44.1 kHz)
// with silent payloads: enough for any decoder to sync on.
func mp3Bytes() []byte {
	frame := make([]byte, 417)
	copy(frame, []byte{0xFF, 0xFB, 0x90, 0x64})
	return append(append([]byte{}, frame...), frame...)
}

// quickTimeBytes is an ftyp box of brand "qt  ": a .mov file's first box.
func quickTimeBytes() []byte {
	b := []byte{0, 0, 0, 20, 'f', 't', 'y', 'p', 'q', 't', ' ', ' ', 0, 0, 0, 0, 'q', 't', ' ', ' '}
	return append(b, make([]byte, 64)...)
}

// m4aBytes is an ftyp box of brand "M4A ".
func m4aBytes() []byte {
	b := []byte{0, 0, 0, 24, 'f', 't', 'y', 'p', 'M', '4', 'A', ' ', 0, 0, 0, 0, 'M', '4', 'A', ' ', 'i', 's', 'o', 'm'}
	return append(b, make([]byte, 64)...)
}

// writeFile writes data under dir and returns its path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
