// Package english says quantities in kesoku's messages, one way everywhere,
// and guesses what a mistyped name meant.
//
// It says a count with the word that agrees with it ("1 file", "2
// files") and a size in bytes ("512 bytes", "4.8 MiB"); and it guesses the
// name a mistyped one meant, for every message's "did you mean".
package english

import (
	"fmt"
	"strconv"
)

// Plural returns one when n is 1 and many otherwise: the noun or verb
// that agrees with n ("request"/"requests", "is"/"are").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and the word that agrees with it: "1 file", "2 files",
// "0 files".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Bytes says a size as people read it, exact for small sizes: "512
// bytes", "4.8 MiB" (units of 1024, as the providers state their
// limits).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGT"[exp])
}
