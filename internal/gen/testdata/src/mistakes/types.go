package mistakes

import "time"

// Mode is a mode.
type Mode string

// The modes.
const (
	Fast Mode = "fast"
	Slow Mode = "slow"
)

// Node is recursive.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children"`
}

// Holder holds a channel.
type Holder struct {
	C chan int `json:"c"`
}

// Embeds embeds a pointer to a struct.
type Embeds struct {
	*Holder
}

// Clash has two fields with one JSON name.
type Clash struct {
	A int `json:"x"`
	B int `json:"x"`
}

// StringOpt uses the ,string option.
type StringOpt struct {
	N int `json:"n,string"`
}

// Unsupported takes every kind of parameter gen refuses.
//
// Args:
//
//	ch: a channel.
//	fn: a function.
//	iface: an interface.
//	cx: a complex number.
//	m: a map with integer keys.
//	pp: a pointer to a pointer.
//	node: a recursive type.
//	holder: a struct with a channel.
//	when: a time.
//	embeds: an embedded pointer.
//	clash: two fields named x.
//	opt: the string option.
//
//kesoku:tool
func Unsupported(ch chan int, fn func(), iface any, cx complex128, m map[int]string, pp **int, node Node, holder Holder, when time.Time, embeds Embeds, clash Clash, opt StringOpt) int {
	return 0
}

// BadDefaults has defaults that do not fit.
//
// Args:
//
//	n: an integer. Defaults to abc.
//	small: an int8. Defaults to 300.
//	whole: an integer. Defaults to 1.5.
//	flag: a boolean. Defaults to "yes".
//	mode: a mode. Defaults to medium.
//	list: a list. Defaults to [1, "x"].
//	bad: broken JSON. Defaults to [1,.
//	empty: no value. Defaults to
//
//kesoku:tool
func BadDefaults(n int, small int8, whole int, flag bool, mode Mode, list []int, bad []int, empty int) int {
	return 0
}

// BadEnums has enums that do not fit.
//
// Args:
//
//	mode: a mode. Must be one of: fast, medium.
//	n: a number. Must be one of: 1, 2.
//	s: a string. Must be one of: a, b. Defaults to c.
//
//kesoku:tool
func BadEnums(mode Mode, n int, s string) int { return 0 }

// TwoValues returns two values.
//
//kesoku:tool
func TwoValues() (int, string) { return 0, "" }

// ErrorFirst returns its error first.
//
//kesoku:tool
func ErrorFirst() (error, int) { return nil, 0 }

// Three returns three values.
//
//kesoku:tool
func Three() (int, int, error) { return 0, 0, nil }

// Chan returns a channel.
//
//kesoku:tool
func Chan() chan int { return nil }

// Tagged has enum tags that do not fit.
type Tagged struct {
	N    int    `json:"n" enum:"1,2"`
	Mode Mode   `json:"mode" enum:"fast,medium"`
	S    string `json:"s" enum:" ,"`
}

// BadTags takes a struct whose tags do not fit its fields.
//
// Args:
//
//	t: the struct.
//
//kesoku:tool
func BadTags(t Tagged) int { return 0 }

// BadTagsToo takes a struct whose tag names a value that is no constant.
//
// Args:
//
//	t: the struct.
//
//kesoku:tool
func BadTagsToo(t struct {
	Mode Mode `json:"mode" enum:"fast,medium"`
}) int {
	return 0
}

// EmptyTag takes a struct whose enum tag lists nothing.
//
// Args:
//
//	t: the struct.
//
//kesoku:tool
func EmptyTag(t struct {
	S string `json:"s" enum:" ,"`
}) int {
	return 0
}
