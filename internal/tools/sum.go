package tools

import (
	"fmt"
	"strconv"

	"github.com/kesoku/kesoku/registry"
)

// CalculateSum returns the sum of two integers.
//
// Args:
//
//	a: The first integer.
//	b: The second integer.
//
//kesoku:tool
func CalculateSum(a, b int) (int, error) {
	sum := a + b
	// Go integers wrap where Python's grow: a sum beyond the
	// range would come back as a wrong answer with no sign of it.
	if (sum > a) != (b > 0) {
		return 0, registry.InvalidArg("b", fmt.Errorf("%d + %d overflows a %d-bit integer", a, b, strconv.IntSize))
	}
	return sum, nil
}
