// Package plural words a count in English: the one home of "1 file",
// "2 files", for every message that counts something.
package plural

import "strconv"

// Word returns one when n is 1 and many otherwise: the noun or verb that
// agrees with n ("request"/"requests", "is"/"are").
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and the word that agrees with it: "1 file", "2 files",
// "0 files".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Word(n, one, many)
}
