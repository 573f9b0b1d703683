package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["mkmedia"] = cmdMkMedia }

// cmdMkMedia writes a real media file for the analyze scripts, made by the
// standard library's encoders or field by field, since txtar holds text:
//
//	mkmedia png|jpeg|wav|pdf|zip FILE
//	mkmedia mp4 FILE [PAD]    testdata/media/tiny.mp4, grown by PAD bytes
func cmdMkMedia(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: mkmedia png|jpeg|wav|pdf|zip|mp4 FILE [PAD]")
	}
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, 7-i, color.RGBA{0, 128, 255, 255})
	}
	var b bytes.Buffer
	switch args[0] {
	case "png":
		ts.Check(png.Encode(&b, img))
	case "jpeg":
		ts.Check(jpeg.Encode(&b, img, nil))
	case "wav":
		// Eight samples of 16-bit mono PCM at 8 kHz.
		le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
		b.WriteString("RIFF")
		le(uint32(36 + 16))
		b.WriteString("WAVEfmt ")
		le(uint32(16))
		le(uint16(1))
		le(uint16(1))
		le(uint32(8000))
		le(uint32(16000))
		le(uint16(2))
		le(uint16(16))
		b.WriteString("data")
		le(uint32(16))
		for i := range 8 {
			le(int16(i * 1000))
		}
	case "pdf":
		b.WriteString("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	case "zip":
		// What no model takes: an archive.
		z := zip.NewWriter(&b)
		w, err := z.Create("notes.txt")
		ts.Check(err)
		w.Write([]byte("notes"))
		ts.Check(z.Close())
	case "mp4":
		data, err := os.ReadFile(filepath.Join("testdata", "media", "tiny.mp4"))
		ts.Check(err)
		b.Write(data)
	default:
		ts.Fatalf("mkmedia: unknown kind %q", args[0])
	}
	if len(args) == 3 {
		pad, err := strconv.Atoi(args[2])
		if err != nil || pad < 0 {
			ts.Fatalf("mkmedia: bad padding %q", args[2])
		}
		b.Write(bytes.Repeat([]byte{0x5a}, pad))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
}
