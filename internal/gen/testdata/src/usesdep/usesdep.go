// Package usesdep has a tool and imports a package whose generated file
// is broken: kesoku gen must hide that file to load this package.
package usesdep

import "github.com/kesoku/kesoku/internal/gen/testdata/src/brokendep"

// Version returns the dependency's version.
//
//kesoku:tool
func Version() int { return brokendep.Version }
