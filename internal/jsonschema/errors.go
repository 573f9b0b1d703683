package jsonschema

import (
	"fmt"
	"math/big"
	"strings"
)

// SchemaError is a document that cannot be compiled: a keyword whose
// value is not what JSON Schema allows there, a pattern that does not
// compile, a reference to nothing or to another document.
type SchemaError struct {
	// Pointer is where in the document the mistake is, as JSON pointer
	// tokens; empty for the document itself.
	Pointer []string
	// Err says what is wrong: a *RefError for a reference to another
	// document, the regexp function's error for a pattern, else words.
	Err error
}

func (e *SchemaError) Error() string {
	if len(e.Pointer) == 0 {
		return e.Err.Error()
	}
	return "/" + strings.Join(e.Pointer, "/") + ": " + e.Err.Error()
}

func (e *SchemaError) Unwrap() error { return e.Err }

// RefError is a reference (or a $schema) to a document other than the
// one compiled: nothing is loaded from outside.
type RefError struct {
	URL string
}

func (e *RefError) Error() string { return fmt.Sprintf("%s is another document", e.URL) }

// PatternError is a regular expression (pattern, patternProperties, the
// format regex) that the regexp function refused.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return e.Err.Error() }

func (e *PatternError) Unwrap() error { return e.Err }

// ValidationError is a value that a schema refuses: a tree whose leaves
// are the problems, each with where in the value it is, where in the
// schema, and what (Kind). The root, and each alternative of an anyOf or
// oneOf with more than one problem, is a *Group.
type ValidationError struct {
	// InstanceLocation is where in the value, as JSON pointer tokens.
	InstanceLocation []string
	// SchemaPointer is the (sub)schema whose keyword refused the value,
	// as JSON pointer tokens into the document compiled.
	SchemaPointer []string
	Kind          Kind
	Causes        []*ValidationError
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *ValidationError) write(b *strings.Builder) {
	if _, ok := e.Kind.(*Group); ok {
		for i, c := range e.Causes {
			if i > 0 {
				b.WriteString("; ")
			}
			c.write(b)
		}
		return
	}
	b.WriteString("at /" + strings.Join(e.InstanceLocation, "/") + ": " + e.Kind.String())
}

// Text is the problem in words without where it is: a group's problems
// joined.
func (e *ValidationError) Text() string {
	if _, ok := e.Kind.(*Group); !ok {
		return e.Kind.String()
	}
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		parts[i] = c.Text()
	}
	return strings.Join(parts, ", ")
}

// Kind is what a problem is; its String says it in English.
type Kind interface {
	String() string
}

// Each kind names the keyword that refused the value; Want is what the
// schema says, Got what the value has.
type (
	Group       struct{}
	FalseSchema struct{}
	Type        struct {
		Got  string
		Want []string
	}
	Enum struct {
		Got  any
		Want []any
	}
	Const  struct{ Got, Want any }
	Format struct {
		Got  any
		Want string
		Err  error
	}
	Minimum           struct{ Got, Want *big.Rat }
	Maximum           struct{ Got, Want *big.Rat }
	ExclusiveMinimum  struct{ Got, Want *big.Rat }
	ExclusiveMaximum  struct{ Got, Want *big.Rat }
	MultipleOf        struct{ Got, Want *big.Rat }
	MinLength         struct{ Got, Want int }
	MaxLength         struct{ Got, Want int }
	MinItems          struct{ Got, Want int }
	MaxItems          struct{ Got, Want int }
	MinProperties     struct{ Got, Want int }
	MaxProperties     struct{ Got, Want int }
	Pattern           struct{ Got, Want string }
	Required          struct{ Missing []string }
	DependentRequired struct {
		Prop    string
		Missing []string
	}
	AdditionalProperties  struct{ Properties []string }
	UnevaluatedProperties struct{ Properties []string }
	AdditionalItems       struct{ Count int }
	UnevaluatedItems      struct{ Count int }
	PropertyName          struct{ Property string }
	UniqueItems           struct{ Duplicates [2]int }
	Contains              struct{}
	MinContains           struct {
		Got  []int
		Want int
	}
	MaxContains struct {
		Got  []int
		Want int
	}
	AnyOf struct{}
	// OneOf's Subschemas are the two first that matched, when more than
	// one did; none matched when it is empty.
	OneOf    struct{ Subschemas []int }
	Not      struct{}
	RefCycle struct{ URL string }
)

func (*Group) String() string       { return "validation failed" }
func (*FalseSchema) String() string { return "false schema" }
func (k *Type) String() string {
	return fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
}
func (k *Enum) String() string {
	parts := make([]string, len(k.Want))
	for i, w := range k.Want {
		parts[i] = display(w)
	}
	if len(parts) == 1 {
		return "value must be " + parts[0]
	}
	return "value must be one of " + strings.Join(parts, ", ")
}
func (k *Const) String() string { return "value must be " + display(k.Want) }
func (k *Format) String() string {
	return fmt.Sprintf("%s is not valid %s: %v", display(k.Got), k.Want, k.Err)
}
func (k *Minimum) String() string {
	return fmt.Sprintf("minimum: got %s, want %s", ratString(k.Got), ratString(k.Want))
}
func (k *Maximum) String() string {
	return fmt.Sprintf("maximum: got %s, want %s", ratString(k.Got), ratString(k.Want))
}
func (k *ExclusiveMinimum) String() string {
	return fmt.Sprintf("exclusiveMinimum: got %s, want %s", ratString(k.Got), ratString(k.Want))
}
func (k *ExclusiveMaximum) String() string {
	return fmt.Sprintf("exclusiveMaximum: got %s, want %s", ratString(k.Got), ratString(k.Want))
}
func (k *MultipleOf) String() string {
	return fmt.Sprintf("multipleOf: got %s, want %s", ratString(k.Got), ratString(k.Want))
}
func (k *MinLength) String() string { return fmt.Sprintf("minLength: got %d, want %d", k.Got, k.Want) }
func (k *MaxLength) String() string { return fmt.Sprintf("maxLength: got %d, want %d", k.Got, k.Want) }
func (k *MinItems) String() string  { return fmt.Sprintf("minItems: got %d, want %d", k.Got, k.Want) }
func (k *MaxItems) String() string  { return fmt.Sprintf("maxItems: got %d, want %d", k.Got, k.Want) }
func (k *MinProperties) String() string {
	return fmt.Sprintf("minProperties: got %d, want %d", k.Got, k.Want)
}
func (k *MaxProperties) String() string {
	return fmt.Sprintf("maxProperties: got %d, want %d", k.Got, k.Want)
}
func (k *Pattern) String() string { return fmt.Sprintf("%q does not match pattern %q", k.Got, k.Want) }
func (k *Required) String() string {
	if len(k.Missing) == 1 {
		return fmt.Sprintf("missing property %q", k.Missing[0])
	}
	return "missing properties " + quoted(k.Missing)
}
func (k *DependentRequired) String() string {
	return fmt.Sprintf("properties %s required, if %q exists", quoted(k.Missing), k.Prop)
}
func (k *AdditionalProperties) String() string {
	return "additional properties " + quoted(k.Properties) + " not allowed"
}
func (k *UnevaluatedProperties) String() string {
	return "unevaluated properties " + quoted(k.Properties) + " not allowed"
}
func (k *AdditionalItems) String() string {
	return fmt.Sprintf("last %d additional item(s) not allowed", k.Count)
}
func (k *UnevaluatedItems) String() string {
	return fmt.Sprintf("last %d unevaluated item(s) not allowed", k.Count)
}
func (k *PropertyName) String() string { return fmt.Sprintf("invalid property name %q", k.Property) }
func (k *UniqueItems) String() string {
	return fmt.Sprintf("items at %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
}
func (*Contains) String() string { return "no items match contains schema" }
func (k *MinContains) String() string {
	return fmt.Sprintf("at least %d items must match contains schema, %d did", k.Want, len(k.Got))
}
func (k *MaxContains) String() string {
	return fmt.Sprintf("at most %d items may match contains schema, %d did", k.Want, len(k.Got))
}
func (*AnyOf) String() string { return "anyOf failed" }
func (k *OneOf) String() string {
	if len(k.Subschemas) == 0 {
		return "oneOf failed, none matched"
	}
	return fmt.Sprintf("oneOf failed, subschemas %d, %d matched", k.Subschemas[0], k.Subschemas[1])
}
func (*Not) String() string { return "not failed" }
func (k *RefCycle) String() string {
	return fmt.Sprintf("%s refers to itself without consuming the value", k.URL)
}

func quoted(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(parts, ", ")
}
