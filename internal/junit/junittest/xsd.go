// Package junittest checks JUnit XML reports against the JUnit XSD that
// Jenkins documents, for tests.
//
// The XSD is kept in testdata (testdata/junit-10.xsd, its source and licence in
// testdata/README.md), for tests: Go has no XSD validator, so this is one
// that reads the XSD's declarations and checks a document by them. It is
// imported by tests only.
package junittest

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// This file checks a document against an XML Schema, as far as the
// schema's own declarations go: which elements may be the root, which
// children and attributes each element may have, which attributes are
// required, which children a sequence requires, where text may be, and
// the patterns of the simple types of attribute values. Everything it
// checks is read from the XSD, not written here.

// Node is an element of a parsed document.
type Node struct {
	Name     string
	Attrs    []xml.Attr
	Children []*Node
	// Text is the character data directly inside the element.
	Text strings.Builder
}

func parseXML(r io.Reader) (*Node, error) {
	d := xml.NewDecoder(r)
	var stack []*Node
	var root *Node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Name: t.Name.Local, Attrs: t.Attr}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root != nil {
				return nil, fmt.Errorf("more than one root element")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// Attr is the value of the attribute name, and whether there is one.
func (n *Node) Attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// schema is what checking needs of an XSD.
type schema struct {
	elements     map[string]*Node // global xs:element by name
	complexTypes map[string]*Node
	simpleTypes  map[string][]*regexp.Regexp
}

func loadSchema(r io.Reader) (*schema, error) {
	root, err := parseXML(r)
	if err != nil {
		return nil, err
	}
	if root.Name != "schema" {
		return nil, fmt.Errorf("root is %s, not xs:schema", root.Name)
	}
	s := &schema{elements: map[string]*Node{}, complexTypes: map[string]*Node{}, simpleTypes: map[string][]*regexp.Regexp{}}
	for _, c := range root.Children {
		name, _ := c.Attr("name")
		switch c.Name {
		case "element":
			s.elements[name] = c
		case "complexType":
			s.complexTypes[name] = c
		case "simpleType":
			for _, r := range c.Children {
				if r.Name != "restriction" {
					return nil, fmt.Errorf("simpleType %s: %s is not handled", name, r.Name)
				}
				if base, _ := r.Attr("base"); base != "xs:string" {
					return nil, fmt.Errorf("simpleType %s: base %s is not handled", name, base)
				}
				for _, p := range r.Children {
					if p.Name != "pattern" {
						return nil, fmt.Errorf("simpleType %s: facet %s is not handled", name, p.Name)
					}
					v, _ := p.Attr("value")
					// An XSD pattern matches the whole value.
					re, err := regexp.Compile("^(?:" + v + ")$")
					if err != nil {
						return nil, fmt.Errorf("simpleType %s: %w", name, err)
					}
					s.simpleTypes[name] = append(s.simpleTypes[name], re)
				}
			}
		}
	}
	return s, nil
}

// validate checks doc against the schema and returns every problem.
func (s *schema) validate(doc *Node) []string {
	var errs []string
	decl, ok := s.elements[doc.Name]
	if !ok {
		return []string{fmt.Sprintf("root element %s is not declared", doc.Name)}
	}
	s.element(doc.Name, doc, decl, &errs)
	return errs
}

// element checks n against its declaration decl.
func (s *schema) element(where string, n *Node, decl *Node, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, where+": "+fmt.Sprintf(format, args...))
	}
	if ref, ok := decl.Attr("ref"); ok {
		if decl = s.elements[ref]; decl == nil {
			fail("refers to undeclared element %s", ref)
			return
		}
	}
	var ct *Node
	if typ, ok := decl.Attr("type"); ok {
		if c, ok := s.complexTypes[typ]; ok {
			ct = c
		} else {
			// A simple type: text only.
			if len(n.Attrs) > 0 || len(n.Children) > 0 {
				fail("of simple type %s, has attributes or elements", typ)
			}
			s.simple(typ, n.Text.String(), func(msg string) { fail("%s", msg) })
			return
		}
	} else {
		for _, c := range decl.Children {
			if c.Name == "complexType" {
				ct = c
			}
		}
	}
	if ct == nil {
		fail("declaration has no type")
		return
	}
	if mixed, _ := ct.Attr("mixed"); mixed != "true" && strings.TrimSpace(n.Text.String()) != "" {
		fail("holds text, and its type is not mixed")
	}
	// Attributes.
	declared := map[string]*Node{}
	for _, c := range ct.Children {
		if c.Name == "attribute" {
			name, _ := c.Attr("name")
			declared[name] = c
		}
	}
	for _, a := range n.Attrs {
		if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
			continue
		}
		d, ok := declared[a.Name.Local]
		if !ok || a.Name.Space != "" {
			fail("attribute %s is not declared", a.Name.Local)
			continue
		}
		typ, _ := d.Attr("type")
		s.simple(typ, a.Value, func(msg string) { fail("attribute %s: %s", a.Name.Local, msg) })
	}
	for name, d := range declared {
		if use, _ := d.Attr("use"); use == "required" {
			if _, ok := n.Attr(name); !ok {
				fail("required attribute %s is missing", name)
			}
		}
	}
	// Children: each one allowed by the content model, and the elements a
	// sequence requires present.
	allowed := map[string]*Node{}
	var required []string
	var walk func(p *Node, inSequence bool)
	walk = func(p *Node, inSequence bool) {
		for _, c := range p.Children {
			switch c.Name {
			case "sequence":
				walk(c, true)
			case "choice":
				walk(c, false)
			case "element":
				name, ok := c.Attr("ref")
				if !ok {
					name, _ = c.Attr("name")
				}
				allowed[name] = c
				if min, _ := c.Attr("minOccurs"); inSequence && min != "0" && p.Name == "sequence" && !optionalGroup(p) {
					required = append(required, name)
				}
			}
		}
	}
	walk(ct, false)
	count := map[string]int{}
	for i, c := range n.Children {
		d, ok := allowed[c.Name]
		if !ok {
			fail("element %s is not allowed here", c.Name)
			continue
		}
		count[c.Name]++
		s.element(fmt.Sprintf("%s/%s[%d]", where, c.Name, i), c, d, errs)
	}
	for _, name := range required {
		if count[name] == 0 {
			fail("required element %s is missing", name)
		}
	}
}

func optionalGroup(p *Node) bool {
	min, _ := p.Attr("minOccurs")
	return min == "0"
}

// simple checks a value of a simple type.
func (s *schema) simple(typ, v string, fail func(string)) {
	switch typ {
	case "xs:string", "":
		return
	}
	patterns, ok := s.simpleTypes[typ]
	if !ok {
		fail(fmt.Sprintf("type %s is not declared", typ))
		return
	}
	for _, re := range patterns {
		if !re.MatchString(v) {
			fail(fmt.Sprintf("%q does not match the pattern of %s", v, typ))
		}
	}
}

//go:embed testdata/junit-10.xsd
var junitXSD []byte

var junitSchema = sync.OnceValues(func() (*schema, error) { return loadSchema(bytes.NewReader(junitXSD)) })

// Check parses report and checks it against the JUnit XSD: its tree, or
// an error that lists every problem.
func Check(report []byte) (*Node, error) {
	s, err := junitSchema()
	if err != nil {
		return nil, err
	}
	doc, err := parseXML(bytes.NewReader(report))
	if err != nil {
		return nil, fmt.Errorf("no XML: %w", err)
	}
	if errs := s.validate(doc); len(errs) > 0 {
		return doc, errors.New("not valid against the JUnit XSD:\n" + strings.Join(errs, "\n"))
	}
	return doc, nil
}
