package junit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// This file checks a document against an XML Schema, as far as the
// schema's own declarations go: which elements may be the root, which
// children and attributes each element may have, which attributes are
// required, which children a sequence requires, where text may be, and
// the patterns of the simple types of attribute values. Everything it
// checks is read from the XSD, not written here.

// node is an element of a parsed document.
type node struct {
	name     string
	attrs    []xml.Attr
	children []*node
	text     strings.Builder
}

func parseXML(r io.Reader) (*node, error) {
	d := xml.NewDecoder(r)
	var stack []*node
	var root *node
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
			n := &node{name: t.Name.Local, attrs: t.Attr}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
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
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

func (n *node) attr(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// schema is what checking needs of an XSD.
type schema struct {
	elements     map[string]*node // global xs:element by name
	complexTypes map[string]*node
	simpleTypes  map[string][]*regexp.Regexp
}

func loadSchema(path string) (*schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root, err := parseXML(f)
	if err != nil {
		return nil, err
	}
	if root.name != "schema" {
		return nil, fmt.Errorf("root is %s, not xs:schema", root.name)
	}
	s := &schema{elements: map[string]*node{}, complexTypes: map[string]*node{}, simpleTypes: map[string][]*regexp.Regexp{}}
	for _, c := range root.children {
		name, _ := c.attr("name")
		switch c.name {
		case "element":
			s.elements[name] = c
		case "complexType":
			s.complexTypes[name] = c
		case "simpleType":
			for _, r := range c.children {
				if r.name != "restriction" {
					return nil, fmt.Errorf("simpleType %s: %s is not handled", name, r.name)
				}
				if base, _ := r.attr("base"); base != "xs:string" {
					return nil, fmt.Errorf("simpleType %s: base %s is not handled", name, base)
				}
				for _, p := range r.children {
					if p.name != "pattern" {
						return nil, fmt.Errorf("simpleType %s: facet %s is not handled", name, p.name)
					}
					v, _ := p.attr("value")
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
func (s *schema) validate(doc *node) []string {
	var errs []string
	decl, ok := s.elements[doc.name]
	if !ok {
		return []string{fmt.Sprintf("root element %s is not declared", doc.name)}
	}
	s.element(doc.name, doc, decl, &errs)
	return errs
}

// element checks n against its declaration decl.
func (s *schema) element(where string, n *node, decl *node, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, where+": "+fmt.Sprintf(format, args...))
	}
	if ref, ok := decl.attr("ref"); ok {
		if decl = s.elements[ref]; decl == nil {
			fail("refers to undeclared element %s", ref)
			return
		}
	}
	var ct *node
	if typ, ok := decl.attr("type"); ok {
		if c, ok := s.complexTypes[typ]; ok {
			ct = c
		} else {
			// A simple type: text only.
			if len(n.attrs) > 0 || len(n.children) > 0 {
				fail("of simple type %s, has attributes or elements", typ)
			}
			s.simple(typ, n.text.String(), func(msg string) { fail("%s", msg) })
			return
		}
	} else {
		for _, c := range decl.children {
			if c.name == "complexType" {
				ct = c
			}
		}
	}
	if ct == nil {
		fail("declaration has no type")
		return
	}
	if mixed, _ := ct.attr("mixed"); mixed != "true" && strings.TrimSpace(n.text.String()) != "" {
		fail("holds text, and its type is not mixed")
	}
	// Attributes.
	declared := map[string]*node{}
	for _, c := range ct.children {
		if c.name == "attribute" {
			name, _ := c.attr("name")
			declared[name] = c
		}
	}
	for _, a := range n.attrs {
		if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
			continue
		}
		d, ok := declared[a.Name.Local]
		if !ok || a.Name.Space != "" {
			fail("attribute %s is not declared", a.Name.Local)
			continue
		}
		typ, _ := d.attr("type")
		s.simple(typ, a.Value, func(msg string) { fail("attribute %s: %s", a.Name.Local, msg) })
	}
	for name, d := range declared {
		if use, _ := d.attr("use"); use == "required" {
			if _, ok := n.attr(name); !ok {
				fail("required attribute %s is missing", name)
			}
		}
	}
	// Children: each one allowed by the content model, and the elements a
	// sequence requires present.
	allowed := map[string]*node{}
	var required []string
	var walk func(p *node, inSequence bool)
	walk = func(p *node, inSequence bool) {
		for _, c := range p.children {
			switch c.name {
			case "sequence":
				walk(c, true)
			case "choice":
				walk(c, false)
			case "element":
				name, ok := c.attr("ref")
				if !ok {
					name, _ = c.attr("name")
				}
				allowed[name] = c
				if min, _ := c.attr("minOccurs"); inSequence && min != "0" && p.name == "sequence" && !optionalGroup(p) {
					required = append(required, name)
				}
			}
		}
	}
	walk(ct, false)
	count := map[string]int{}
	for i, c := range n.children {
		d, ok := allowed[c.name]
		if !ok {
			fail("element %s is not allowed here", c.name)
			continue
		}
		count[c.name]++
		s.element(fmt.Sprintf("%s/%s[%d]", where, c.name, i), c, d, errs)
	}
	for _, name := range required {
		if count[name] == 0 {
			fail("required element %s is missing", name)
		}
	}
}

func optionalGroup(p *node) bool {
	min, _ := p.attr("minOccurs")
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

var junitSchema = sync.OnceValues(func() (*schema, error) { return loadSchema("testdata/junit-10.xsd") })

// checkReport fails t unless report is valid against the JUnit XSD, and
// returns its parsed tree.
func checkReport(t *testing.T, report []byte) *node {
	t.Helper()
	s, err := junitSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseXML(bytes.NewReader(report))
	if err != nil {
		t.Fatalf("report is no XML: %v\n%s", err, report)
	}
	if errs := s.validate(doc); len(errs) > 0 {
		t.Fatalf("report is not valid against the JUnit XSD:\n%s\n%s", strings.Join(errs, "\n"), report)
	}
	return doc
}

// The checker must catch what the XSD forbids, or a report's validity
// would say nothing.
func TestSchemaCheckerRefuses(t *testing.T) {
	s, err := junitSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ doc, want string }{
		{`<testsuites><testsuite name="s" tests="1" failures="0"/></testsuites>`, "required attribute errors is missing"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="x"/></testsuite></testsuites>`, "required attribute name is missing"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="1 s"/></testsuites>`, "does not match the pattern"},
		{`<testsuites skipped="1"/>`, "attribute skipped is not declared"},
		{`<testsuites><testcase name="x"/></testsuites>`, "element testcase is not allowed here"},
		{`<testsuites>words</testsuites>`, "holds text"},
		{`<report/>`, "root element report is not declared"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><system-out a="b">x</system-out></testsuite></testsuites>`, "has attributes"},
	} {
		doc, err := parseXML(strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		errs := strings.Join(s.validate(doc), "\n")
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.doc, errs, tc.want)
		}
	}
}
