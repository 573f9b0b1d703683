package tools

// CalculateSum returns the sum of two integers.
//
// Args:
//
//	a: The first integer.
//	b: The second integer.
//
//kesoku:tool
func CalculateSum(a, b int) int { return a + b }
