package tooldoc

import (
	"reflect"
	"slices"
	"strings"
)

// JSON is what a field's json tag says, as encoding/json reads it.
type JSON struct {
	// Name is the member's name; "" leaves it to the field's.
	Name string
	// Skip says the tag is "-": the field is never written or read.
	Skip bool
	// Optional says omitempty or omitzero: the member may be absent.
	Optional bool
	// Quoted says ",string": a number or boolean travels as a string.
	Quoted bool
}

// ParseJSON reads the json key of a struct tag.
func ParseJSON(tag string) JSON {
	v := reflect.StructTag(tag).Get("json")
	if v == "-" {
		return JSON{Skip: true}
	}
	name, opts, _ := strings.Cut(v, ",")
	j := JSON{Name: name}
	for o := range strings.SplitSeq(opts, ",") {
		switch o {
		case "omitempty", "omitzero":
			j.Optional = true
		case "string":
			j.Quoted = true
		}
	}
	return j
}

// Description is what a field's `description:"..."` tag says of it.
func Description(tag string) string {
	return strings.TrimSpace(reflect.StructTag(tag).Get("description"))
}

// Enum reads a field's `enum:"fast, slow"` tag: the values a string may
// take, separated by commas, spaces around them ignored. ok says the tag
// is there; it may list no value, which is a mistake to report.
func Enum(tag string) (values []string, ok bool) {
	v, ok := reflect.StructTag(tag).Lookup("enum")
	for e := range strings.SplitSeq(v, ",") {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(values, e) {
			values = append(values, e)
		}
	}
	return values, ok
}
