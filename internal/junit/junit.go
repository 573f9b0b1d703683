// Package junit writes JUnit XML reports, which the test reporters of CI
// systems read.
//
// GitHub Actions, GitLab CI and Jenkins read them: one testsuite under one
// testsuites, one testcase per request, a failure for every error record
// or difference. A report is written as the command goes, its testcases
// to a file beside it, so that memory stays flat however many requests
// there are; Close puts the counts in front and renames the whole into
// place, so that a reader never sees half a report.
package junit

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// Case is one testcase: one request.
type Case struct {
	// Name says which request: its id and its tool.
	Name string
	// Classname is where the request came from: its request file, or the
	// two records files diff compared.
	Classname string
	// Time is how long the request took; 0 leaves it out.
	Time time.Duration
	// Failures are what went wrong; none for a request that passed.
	Failures []Failure
	// Skipped, when set, says why the request was not finished (an
	// aborted record); the case counts as skipped, not failed.
	Skipped string
	// More is how many failures beyond Failures were left out.
	More int
}

// Failure is one failure of a testcase.
type Failure struct {
	// Type is what kind of failure: an error kind, a kind of difference.
	Type string
	// Message is a line that says it; Body the whole text.
	Message, Body string
}

// Report is a JUnit XML report being written.
type Report struct {
	path, suite string
	body        *os.File
	w           *bufio.Writer
	start       time.Time
	now         func() time.Time

	tests, failures, skipped int
	err                      error
	done                     bool
}

// Create starts the report of the suite named suite, to be written to
// path when Close is called; nothing is at path before then. A path that
// is a symlink keeps its link (the file it leads to gets the report); one
// that is no regular file (/dev/null, a FIFO) is written into, never
// replaced.
func Create(path, suite string) (*Report, error) {
	target, st, err := atomicfile.Target(path)
	if err != nil {
		return nil, err
	}
	// The testcases wait beside the report, on its file system; those of
	// a device's report, where nothing may be put beside it, wait in the
	// temporary directory.
	dir := filepath.Dir(target)
	switch {
	case st == nil:
	case st.IsDir():
		// A forgotten file name: found now, not after the run.
		return nil, fmt.Errorf("%s is a directory", path)
	case !st.Mode().IsRegular():
		dir = ""
	}
	body, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return nil, err
	}
	r := &Report{path: path, suite: suite, body: body, w: bufio.NewWriterSize(body, 64<<10), now: time.Now}
	r.start = r.now()
	return r, nil
}

// Add writes a testcase.
func (r *Report) Add(c *Case) error {
	if r.err != nil {
		return r.err
	}
	r.tests++
	switch {
	case c.Skipped != "":
		r.skipped++
	case len(c.Failures) > 0:
		r.failures++
	}
	w := r.w
	w.WriteString(`    <testcase name="`)
	attr(w, c.Name)
	if c.Classname != "" {
		w.WriteString(`" classname="`)
		attr(w, c.Classname)
	}
	if c.Time > 0 {
		w.WriteString(`" time="`)
		w.WriteString(seconds(c.Time))
	}
	if c.Skipped == "" && len(c.Failures) == 0 {
		w.WriteString("\"/>\n")
		return r.check()
	}
	w.WriteString("\">\n")
	if c.Skipped != "" {
		w.WriteString(`      <skipped message="`)
		attr(w, c.Skipped)
		w.WriteString("\"/>\n")
	}
	for _, f := range c.Failures {
		w.WriteString(`      <failure type="`)
		attr(w, f.Type)
		w.WriteString(`" message="`)
		attr(w, f.Message)
		w.WriteString(`">`)
		text(w, f.Body)
		w.WriteString("</failure>\n")
	}
	if c.More > 0 {
		fmt.Fprintf(w, "      <system-out>and %d more differences</system-out>\n", c.More)
	}
	w.WriteString("    </testcase>\n")
	return r.check()
}

func (r *Report) check() error {
	if r.err == nil {
		if _, err := r.w.Write(nil); err != nil {
			r.err = err
		}
	}
	return r.err
}

// Reset forgets the cases added so far: the report is to be made again,
// from the start.
func (r *Report) Reset() error {
	if r.err != nil {
		return r.err
	}
	r.tests, r.failures, r.skipped = 0, 0, 0
	if err := r.body.Truncate(0); err != nil {
		return err
	}
	if _, err := r.body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r.w.Reset(r.body)
	return nil
}

// Rename names the testsuite suite, before Close: a merge of an eval's
// shards is known to be one only once its parts are read, and its report
// is then the eval's.
func (r *Report) Rename(suite string) { r.suite = suite }

// Close writes the report to its path, the counts and the time since
// Create on its testsuite, and removes what it wrote beside it.
func (r *Report) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	defer os.Remove(r.body.Name())
	defer r.body.Close()
	if r.err != nil {
		return r.err
	}
	if err := r.w.Flush(); err != nil {
		return err
	}
	if _, err := r.body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// A report is read by other programs: as readable as the file it
	// replaces, not the 0600 of a temporary file.
	mode := os.FileMode(0o644)
	if st, err := os.Stat(r.path); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.WriteFunc(r.path, mode, func(out io.Writer) error {
		w := bufio.NewWriterSize(out, 64<<10)
		elapsed := seconds(r.now().Sub(r.start))
		counts := fmt.Sprintf(`tests="%d" failures="%d" errors="0"`, r.tests, r.failures)
		w.WriteString(xml.Header)
		w.WriteString(`<testsuites name="`)
		attr(w, r.suite)
		fmt.Fprintf(w, "\" %s time=\"%s\">\n  <testsuite name=\"", counts, elapsed)
		attr(w, r.suite)
		fmt.Fprintf(w, "\" %s skipped=\"%d\" time=\"%s\" timestamp=\"%s\">\n", counts, r.skipped, elapsed, r.start.UTC().Format("2006-01-02T15:04:05"))
		if _, err := io.Copy(w, r.body); err != nil {
			return err
		}
		w.WriteString("  </testsuite>\n</testsuites>\n")
		return w.Flush()
	})
}

// Abandon removes what the report wrote beside its path and writes
// nothing: for a command that refused its input and wrote no records
// either.
// Abandon after Close does nothing: deferred, it cleans up after a
// command that ended before its report was written.
func (r *Report) Abandon() {
	if r.done {
		return
	}
	r.done = true
	r.body.Close()
	os.Remove(r.body.Name())
}

// seconds is d as JUnit times are written: seconds, to the millisecond.
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// attr writes s as the value of an attribute: quotes and line ends
// escaped, so that a reader gets them back as they were.
func attr(w *bufio.Writer, s string) { escape(w, s, true) }

// text writes s as character data, its lines as they are.
func text(w *bufio.Writer, s string) { escape(w, s, false) }

// escape writes s escaped for XML; what XML cannot hold at all (most
// control characters, bytes that are not UTF-8) becomes U+FFFD.
func escape(w *bufio.Writer, s string, inAttr bool) {
	for _, r := range s {
		switch {
		case r == '&':
			w.WriteString("&amp;")
		case r == '<':
			w.WriteString("&lt;")
		case r == '>':
			w.WriteString("&gt;")
		case r == '"' && inAttr:
			w.WriteString("&quot;")
		case r == '\n' && inAttr:
			w.WriteString("&#xA;")
		case r == '\t' && inAttr:
			w.WriteString("&#x9;")
		case r == '\r':
			w.WriteString("&#xD;")
		case r == '\n' || r == '\t' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD && r != utf8.RuneError || r >= 0x10000 && r <= 0x10FFFF:
			w.WriteRune(r)
		default:
			w.WriteRune('\uFFFD')
		}
	}
}

// maxMessage bounds a failure's message attribute: one line that a
// report's table shows; the body holds the whole.
const maxMessage = 200

// firstLine is the first line of s, cut to maxMessage bytes.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " ..."
	}
	return cut(s, maxMessage)
}

// cut is s cut to about n bytes, not splitting a UTF-8 character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + " ..."
}
