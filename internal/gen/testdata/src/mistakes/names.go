package mistakes

// BadName has a name no provider accepts.
//
//kesoku:tool name=9lives
func BadName() int { return 9 }

// DottedName has a dot in its name.
//
//kesoku:tool name=has.dot
func DottedName() int { return 1 }

// First takes the name dup.
//
//kesoku:tool name=dup
func First() int { return 1 }

// Second takes the name dup too.
//
//kesoku:tool name=dup
func Second() int { return 2 }

// UnknownOption misspells name.
//
//kesoku:tool nam=x
func UnknownOption() int { return 1 }

// UnknownDirective misspells the directive.
//
//kesoku:tools
func UnknownDirective() int { return 1 }

// Counter counts.
type Counter struct{ n int }

// Add is a method, which cannot be a tool.
//
//kesoku:tool
func (c *Counter) Add() int { c.n++; return c.n }

// Config is a type, which cannot be a tool.
//
//kesoku:tool
type Config struct{}

// Generic has a type parameter.
//
// Args:
//
//	v: the value.
//
//kesoku:tool
func Generic[T any](v T) T { return v }

// Unnamed has an unnamed parameter.
//
//kesoku:tool
func Unnamed(int) int { return 1 }

// Blank has a blank parameter.
//
// Args:
//
//	_: nothing.
//
//kesoku:tool
func Blank(_ int) int { return 1 }

// Twice has two directives.
//
//kesoku:tool
//kesoku:tool name=twice
func Twice() int { return 1 }

// BadCheck names a check that is no function of the right kind.
//
//kesoku:tool check=Twice
func BadCheck() int { return 1 }
