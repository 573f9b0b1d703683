//go:build !unix

package records

import (
	"os"
)

// lockFile does nothing where flock does not exist.
func lockFile(*os.File) error { return nil }
