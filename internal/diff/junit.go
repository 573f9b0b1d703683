package diff

import (
	"github.com/kesoku/kesoku/internal/junit"
)

// maxReported bounds the failures of one request in a JUnit report; the
// others are counted.
const maxReported = 20

// Report writes a comparison as a JUnit report: one testcase per request
// compared, passing when its records are the same, with a failure for
// each place that differs (or for being in one file only). Give its Same
// and Difference to Compare (Options.Same, emit), then call Close.
type Report struct {
	r         *junit.Report
	classname string
	old, new  string
	// cur is the case of the request whose differences are being handed
	// on: Compare may hand on a request's changes in several Differences,
	// one after another.
	cur *junit.Case
	req string
}

// NewReport writes to r the comparison of the files named old and new.
func NewReport(r *junit.Report, old, new string) *Report {
	return &Report{r: r, classname: old + " " + new, old: old, new: new}
}

// Same adds the passing case of a request whose records compare equal.
func (p *Report) Same(request, name string) error {
	if err := p.flush(); err != nil {
		return err
	}
	return p.r.Add(&junit.Case{Name: junit.CaseName(request, name), Classname: p.classname})
}

// Difference adds d to its request's case.
func (p *Report) Difference(d *Difference) error {
	if p.cur != nil && p.req != d.Request {
		if err := p.flush(); err != nil {
			return err
		}
	}
	if p.cur == nil {
		p.cur, p.req = &junit.Case{Name: junit.CaseName(d.Request, d.Name), Classname: p.classname}, d.Request
	}
	c := p.cur
	add := func(f junit.Failure) {
		if len(c.Failures) < maxReported {
			c.Failures = append(c.Failures, f)
		} else {
			c.More++
		}
	}
	switch d.Kind {
	case OnlyOld:
		add(junit.OnlyFailure(string(d.Kind), d.Request, p.old))
	case OnlyNew:
		add(junit.OnlyFailure(string(d.Kind), d.Request, p.new))
	}
	for _, ch := range d.Changes {
		add(junit.DiffFailure(string(d.Kind), d.Request, junit.Change{Path: ch.Path.String(), Old: ch.Old, New: ch.New}))
	}
	c.More += d.More
	return nil
}

func (p *Report) flush() error {
	if p.cur == nil {
		return nil
	}
	c := p.cur
	p.cur = nil
	return p.r.Add(c)
}

// Close adds the last request's case and writes the report.
func (p *Report) Close() error {
	err := p.flush()
	if cerr := p.r.Close(); err == nil {
		err = cerr
	}
	return err
}
