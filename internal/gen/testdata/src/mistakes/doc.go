// Package mistakes holds tool declarations that kesoku gen must refuse,
// each with a message at its file and line. The expected messages are in
// testdata/mistakes.golden.
package mistakes

import "context"

// NoEntry adds.
//
// Args:
//
//	a: the first.
//
//kesoku:tool
func NoEntry(a, b int) int { return a + b }

// ExtraEntry adds.
//
// Args:
//
//	a: the first.
//	b: the second.
//	c: names no parameter.
//
//kesoku:tool
func ExtraEntry(a, b int) int { return a + b }

// Typo names its parameter wrongly.
//
// Args:
//
//	total: the count.
//
//kesoku:tool
func Typo(count int) int { return count }

// NoArgsSection has parameters but no Args section.
//
//kesoku:tool
func NoArgsSection(path string) string { return path }

// EmptyEntry has an entry with no text.
//
// Args:
//
//	a:
//
//kesoku:tool
func EmptyEntry(a int) int { return a }

// TwiceEntry describes a twice.
//
// Args:
//
//	a: once.
//	a: twice.
//
//kesoku:tool
func TwiceEntry(a int) int { return a }

// Malformed has a line in Args that is not an entry.
//
// Args:
//
//	this line is not an entry
//	a: the value.
//
//kesoku:tool
func Malformed(a int) int { return a }

// CtxEntry describes its context, which is injected.
//
// Args:
//
//	ctx: the context.
//	a: the value.
//
//kesoku:tool
func CtxEntry(ctx context.Context, a int) int { return a }

//kesoku:tool
func NoDescription() int { return 1 }

// TwoArgsSections has two.
//
// Args:
//
//	a: the value.
//
// Args:
//
//	a: again.
//
//kesoku:tool
func TwoArgsSections(a int) int { return a }
