package junittest

import (
	"strings"
	"testing"
)

// The checker must catch what the XSD forbids, or a report's validity
// would say nothing.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{`<testsuites><testsuite name="s" tests="1" failures="0"/></testsuites>`, "required attribute errors is missing"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase classname="x"/></testsuite></testsuites>`, "required attribute name is missing"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="1 s"/></testsuites>`, "does not match the pattern"},
		{`<testsuites skipped="1"/>`, "attribute skipped is not declared"},
		{`<testsuites><testcase name="x"/></testsuites>`, "element testcase is not allowed here"},
		{`<testsuites>words</testsuites>`, "holds text"},
		{`<report/>`, "root element report is not declared"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><system-out a="b">x</system-out></testsuite></testsuites>`, "has attributes"},
		{`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"><rerunFailure>x</rerunFailure></testcase></testsuite></testsuites>`, "required attribute type is missing"},
		{`<testsuites>`, "no XML"},
	} {
		_, err := Check([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.doc, err, tc.want)
		}
	}
}

func TestCheckAccepts(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="n" tests="2" failures="1" errors="0" time="1.5">
  <testsuite name="s" tests="2" failures="1" errors="0" skipped="0" time="1,234.5" timestamp="2026-12-01T00:00:00">
    <properties><property name="a" value="b"/></properties>
    <testcase name="ok" classname="c" time="0.1"/>
    <testcase name="bad"><failure type="t" message="m">body
text</failure><system-out>out</system-out></testcase>
  </testsuite>
</testsuites>`
	if _, err := Check([]byte(doc)); err != nil {
		t.Error(err)
	}
}
