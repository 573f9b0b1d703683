package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/kesoku/kesoku/internal/workspace"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// Tool is the only tool a batch calls: its requests are model calls and
// nothing else (a tool loop would wait a day a turn).
const Tool = "analyze_media"

// SubmitOptions are what kesoku batch submit was asked to do.
type SubmitOptions struct {
	// Registry holds the tools the requests are checked against.
	Registry *toolset.Set
	// File is the request file, "-" for Stdin; Format forces its format
	// ("" for the extension's, or for standard input what it looks like).
	File   string
	Format request.Format
	Stdin  io.Reader
	// StatePath is the state file (-o); "" for StatePath(AWD, the
	// batch's id), which the same command finds again.
	StatePath string
	// AWD and Staging are where the requests' paths are found, as
	// kesoku run finds them.
	AWD, Staging string
	// Provider and Model are the model's, as resolved.
	Provider, Model string
	// Session is --session, "" for none.
	Session string
	// Media tunes how files go to the model (--inline-limit).
	Media media.Options
	// Connect builds the provider's client. It is called once the
	// requests have passed their checks: nothing is sent before.
	Connect func(context.Context) (llm.Batcher, error)
	// Abandon, once closed (a second interrupt), abandons a part being
	// sent. The first interrupt, ctx's, lets it finish, so that a batch
	// the provider created is never lost.
	Abandon <-chan struct{}
	// Notify, when set, is told of each part sent, in one line.
	Notify func(string)
}

// SubmitResult is what submit did.
type SubmitResult struct {
	State *State
	// Path is the state file.
	Path string
	// Already says the whole batch had been submitted by an earlier
	// command: nothing was sent.
	Already bool
	// Sent is how many requests this command sent.
	Sent int64
}

// Refusal says why submit sent nothing: requests that cannot go in a
// batch, each with its position.
type Refusal struct {
	// Problems are the first few, each "file:line:col: what".
	Problems []string
	// Total is how many there are in all.
	Total int
}

// maxProblems bounds the problems a Refusal lists.
const maxProblems = 20

func (r *Refusal) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s cannot go in a batch; nothing was sent:", r.Total, english.Plural(r.Total, "request", "requests"))
	for _, p := range r.Problems {
		b.WriteString("\n  " + p)
	}
	if more := r.Total - len(r.Problems); more > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", more)
	}
	return b.String()
}

// UsageError is a mistake of the command line or of the files it names:
// nothing was sent.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// OtherBatchError says the state file at Path follows another batch: of
// File's requests, to Model.
type OtherBatchError struct {
	Path, File, Model string
}

func (e *OtherBatchError) Error() string {
	return fmt.Sprintf("%s is the state of another batch (of %s, to %s): give the state a new file, or remove it", e.Path, e.File, e.Model)
}

func usage(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Submit checks every request of the file, then sends them in as many
// parts as the provider's limits ask, recording each part in the state
// file as the provider accepts it. A state file of the same requests
// that is not finished is taken up where it stopped.
func Submit(ctx context.Context, o SubmitOptions) (*SubmitResult, error) {
	src, err := o.source()
	if err != nil {
		return nil, err
	}
	st, path, err := o.state(src)
	if err != nil {
		return nil, err
	}
	res := &SubmitResult{State: st, Path: path}
	if st.Submitted {
		res.Already = true
		return res, nil
	}
	c, err := media.CapabilityOf(o.Provider, o.Media)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	n, err := o.check(ctx, st, src, c)
	if err != nil {
		return nil, err
	}
	if err := st.fits(path, src.display, n); err != nil {
		return nil, err
	}
	st.Requests = n
	b, err := o.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &sender{o: &o, st: st, path: path, b: b, c: c, src: src}
	defer s.close()
	if err := s.recover(ctx); err != nil {
		return nil, err
	}
	if err := s.forgetUploads(ctx); err != nil {
		return nil, err
	}
	err = s.send(ctx)
	res.Sent = s.sent
	return res, err
}

// source is the request file as it will be read, by submit and by
// collect: the file itself, or a copy of standard input.
type source struct {
	path, display string
	format        request.Format
	sha           string
}

func (o *SubmitOptions) source() (*source, error) {
	if o.File != "-" {
		path, err := filepath.Abs(o.File)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		sha, err := hashFile(o.File)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		return &source{path: path, display: o.File, format: o.Format, sha: sha}, nil
	}
	// Standard input is kept, for collect to read the same requests.
	dir := workspace.LayoutOf(o.AWD).Batches()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "stdin-*")
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), o.Stdin)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("read standard input: %w", err)
	}
	sha := hex.EncodeToString(h.Sum(nil))
	format := o.Format
	if format == "" {
		// The format is what standard input looks like: sniffed as run
		// sniffs it.
		in, err := os.Open(tmp.Name())
		if err != nil {
			return nil, err
		}
		f, err := request.Open(context.Background(), "-", "", in)
		in.Close()
		if err != nil {
			os.Remove(tmp.Name())
			return nil, &UsageError{Err: err}
		}
		format = f.Format
		f.Close()
	}
	path := filepath.Join(dir, "stdin-"+sha[:16]+"."+string(format))
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return nil, err
	}
	return &source{path: path, display: "<stdin>", format: format, sha: sha}, nil
}

// batchID names a batch after its file and what it was sent to: the same
// requests sent to the same model have the same id, so that the same
// command finds its state again.
func batchID(display, sha, provider, model string) string {
	base := strings.TrimSuffix(filepath.Base(display), filepath.Ext(display))
	base = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, base)
	if display == "<stdin>" || base == "" {
		base = "stdin"
	}
	h := sha256.Sum256([]byte(sha + "\x00" + provider + "\x00" + model))
	return fmt.Sprintf("%s-%s-%s", base, provider, hex.EncodeToString(h[:4]))
}

// state is the batch's state: the one found at its path, when it is of
// the same requests and model, or a new one.
func (o *SubmitOptions) state(src *source) (*State, string, error) {
	id := batchID(src.display, src.sha, o.Provider, o.Model)
	path := o.StatePath
	if path == "" {
		path = StatePath(o.AWD, id)
	}
	st, err := Load(path)
	switch {
	case err == nil:
		if st.SHA256 != src.sha || st.Provider != o.Provider || st.Model != o.Model {
			return nil, "", &UsageError{Err: &OtherBatchError{Path: path, File: st.File, Model: st.Model}}
		}
		return st, path, nil
	case !errors.Is(err, os.ErrNotExist):
		return nil, "", &UsageError{Err: err}
	}
	st = &State{
		Version: stateVersion, ID: id, Provider: o.Provider, Model: o.Model,
		File: src.path, Format: string(src.format), SHA256: src.sha,
		SessionID: o.Session, SessionFlag: o.Session != "", Created: time.Now().UTC(),
	}
	if st.SessionID == "" {
		st.SessionID = message.NewID()
	}
	return st, path, nil
}

// openRequests opens the batch's request file.
func openRequests(ctx context.Context, st *State) (*request.File, error) {
	return request.Open(ctx, st.File, request.Format(st.Format), nil)
}

// open opens the request file as submit reads it: named as the user
// named it, so that every position reads as theirs.
func (src *source) open(ctx context.Context, st *State) (*request.File, error) {
	name := src.display
	if name == "<stdin>" {
		name = src.path
	}
	return request.Open(ctx, name, request.Format(st.Format), nil)
}

// check reads every request once, sending nothing: each must be an
// analyze_media request that kesoku run would run, of a file the model
// takes. It returns how many there are.
func (o *SubmitOptions) check(ctx context.Context, st *State, src *source, c media.Capability) (int64, error) {
	f, err := src.open(ctx, st)
	if err != nil {
		return 0, &UsageError{Err: err}
	}
	defer f.Close()
	ref := &Refusal{}
	refuse := func(pos yamlpos.Pos, msg string) {
		ref.Total++
		if len(ref.Problems) < maxProblems {
			ref.Problems = append(ref.Problems, pos.Prefix(msg))
		}
	}
	st.Format = string(f.Format)
	checker := runner.New(o.Registry, runner.Options{}).Checker()
	var n int64
	for req := range f.Requests() {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		n++
		// Every request is numbered, as run numbers them: ids and
		// duplicates are run's.
		p := checker.Check(req)
		switch {
		case req.Err == nil && req.Name != "" && req.Name != Tool:
			refuse(req.Pos, fmt.Sprintf("request %d calls %s: a batch takes only %s requests, which ask a model and nothing more", n, req.Name, Tool))
			continue
		case p != nil:
			refuse(p.Pos, fmt.Sprintf("request %d: %s: %s", n, p.Kind, p.Message))
			continue
		}
		a, err := o.prepare(req, c)
		if err != nil {
			refuse(req.Pos, fmt.Sprintf("request %d: %v", n, err))
			continue
		}
		a.Close()
	}
	if err := f.Err(); err != nil {
		return 0, &UsageError{Err: err}
	}
	if ref.Total > 0 {
		return 0, ref
	}
	if n == 0 {
		return 0, usage("%s holds no request: nothing to send", o.File)
	}
	return n, nil
}

// attachment is a request's file, checked and ready to go, with the
// question asked of it.
type attachment struct {
	*media.Attachment
	f      *os.File
	prompt string
}

func (a *attachment) Close() error { return a.f.Close() }

// prepare opens and checks the file of an analyze_media request, as the
// tool does in kesoku run: the same confinement, the same checks.
func (o *SubmitOptions) prepare(req *request.Request, c media.Capability) (*attachment, error) {
	path, _ := req.Args["path"].(string)
	prompt, _ := req.Args["prompt"].(string)
	prompt = media.Prompt(prompt)
	f, err := media.OpenConfined(o.AWD, o.Staging, path)
	if err != nil {
		return nil, err
	}
	a, err := media.Prepare(f, path, c, len(prompt))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &attachment{Attachment: a, f: f, prompt: prompt}, nil
}

// sender sends a batch's requests, part by part.
type sender struct {
	o    *SubmitOptions
	st   *State
	path string
	b    llm.Batcher
	c    media.Capability
	src  *source
	// sent is how many requests this command sent.
	sent int64

	// The part being built: its entries spooled to a file, its first
	// position, and the files uploaded for it.
	spool   *os.File
	bytes   int64
	count   int
	first   int64
	uploads []string
	// uploadedAt is when the first file of the part being built was
	// uploaded; pendingAt that of the file of the request entry made last,
	// which add gives the part it joins.
	uploadedAt, pendingAt time.Time
}

func (s *sender) close() {
	if s.spool != nil {
		s.spool.Close()
		os.Remove(s.spool.Name())
	}
}

// recover takes up a part that an earlier submit was sending when it was
// stopped (killed, or cut off before the provider's answer): the
// provider may have created it, and would run it, and bill it, twice. A
// provider that names batches (Gemini) is asked for it by its name: found,
// it is recorded as sent, with the files uploaded for it; otherwise it is
// sent again, saying so.
func (s *sender) recover(ctx context.Context) error {
	sd := s.st.Sending
	if sd == nil {
		return nil
	}
	n := len(s.st.Parts) + 1
	if f, ok := s.b.(llm.BatchFinder); ok && sd.First == s.st.sent()+1 {
		// The provider's clock and this one may differ a little.
		b, err := f.FindBatch(ctx, sd.Name, sd.Started.Add(-10*time.Minute))
		if err != nil {
			return fmt.Errorf("look for part %d, which a stopped submit was sending: %w", n, err)
		}
		if b != nil {
			p := Part{Batch: b.ID, First: sd.First, Last: sd.Last, Created: b.Created, Expires: b.Expires}
			if p.Created.IsZero() {
				p.Created = sd.Started
			}
			// Every file uploaded before the stop is the part's, or of
			// the request after it, sent again: deleted with the part's.
			p.Files = append(slices.Clone(s.st.Uploads), b.Files...)
			if len(p.Files) > 0 {
				p.FilesExpire = sd.FilesExpire
			}
			s.st.Parts = append(s.st.Parts, p)
			s.st.Uploads, s.st.Sending = nil, nil
			if err := s.st.Save(s.path); err != nil {
				return err
			}
			s.sent += p.Count()
			s.notify(fmt.Sprintf("found part %d, requests %d to %d, as %s: the provider created it for a submit that was stopped; not sent again", n, p.First, p.Last, p.Batch))
			return nil
		}
	}
	s.notify(fmt.Sprintf("a submit stopped at %s while it sent part %d (requests %d to %d); %s has no trace of it under its name, or names no batches: "+
		"sending it again (should the provider's console show it, cancel one)", sd.Started.Format(time.RFC3339), n, sd.First, sd.Last, s.st.Provider))
	s.st.Sending = nil
	return s.st.Save(s.path)
}

func (s *sender) notify(msg string) {
	if s.o.Notify != nil {
		s.o.Notify(msg)
	}
}

// forgetUploads deletes the files an interrupted submit uploaded for
// requests it never sent: they are uploaded again.
func (s *sender) forgetUploads(ctx context.Context) error {
	if len(s.st.Uploads) == 0 {
		return nil
	}
	for _, name := range s.st.Uploads {
		if err := s.b.DeleteFile(ctx, name); err != nil {
			return err
		}
	}
	s.st.Uploads = nil
	return s.st.Save(s.path)
}

// send sends the requests after the last part, then the last part.
func (s *sender) send(ctx context.Context) error {
	f, err := s.src.open(ctx, s.st)
	if err != nil {
		return &UsageError{Err: err}
	}
	defer f.Close()
	limits := s.b.BatchLimits()
	var pos int64
	for req := range f.Requests() {
		pos++
		if pos <= s.st.sent() {
			continue
		}
		if ctx.Err() != nil {
			return s.interrupted(ctx)
		}
		entry, uri, err := s.entry(ctx, req, pos)
		if err != nil {
			if ctx.Err() != nil {
				return s.interrupted(ctx)
			}
			return err
		}
		size := int64(len(entry)) + 1
		if limits.MaxBytes > 0 && size > limits.MaxBytes {
			return fmt.Errorf("%s: request %d is %d bytes as %s takes it, more than a whole batch (%d bytes)", req.Pos, pos, size, s.st.Provider, limits.MaxBytes)
		}
		if s.count > 0 && ((limits.MaxRequests > 0 && s.count+1 > limits.MaxRequests) || (limits.MaxBytes > 0 && s.bytes+size > limits.MaxBytes)) {
			if err := s.flush(ctx, pos-1); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return s.interrupted(ctx)
			}
		}
		if err := s.add(entry, pos, uri); err != nil {
			return err
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	if pos != s.st.Requests {
		return fmt.Errorf("%s changed while it was read: it held %d requests, then %d", f.Name, s.st.Requests, pos)
	}
	if s.count > 0 {
		if err := s.flush(ctx, pos); err != nil {
			return err
		}
	}
	s.st.Submitted = true
	return s.st.Save(s.path)
}

// entry prepares the request at pos and translates it into its batch
// entry, uploading its file first where it goes through a Files API: uri
// is the file uploaded, "" for none.
func (s *sender) entry(ctx context.Context, req *request.Request, pos int64) (entry []byte, uri string, err error) {
	a, err := s.o.prepare(req, s.c)
	if err != nil {
		// It passed the check a moment ago: the file changed since.
		return nil, "", fmt.Errorf("%s: request %d: %w", req.Pos, pos, err)
	}
	defer a.Close()
	began := time.Now()
	uri, err = media.UploadAttachment(ctx, s.b, a.Attachment)
	if err != nil {
		return nil, "", fmt.Errorf("%s: request %d: %w", req.Pos, pos, err)
	}
	if uri != "" {
		// The file's life starts with its upload, somewhere in it.
		s.pendingAt = began
		// Noted before anything else can fail, so that the file is
		// deleted, whatever happens next.
		s.st.Uploads = append(s.st.Uploads, uri)
		if err := s.st.Save(s.path); err != nil {
			return nil, "", err
		}
	}
	entry, err = s.b.BatchEntry(Key(pos), media.Question(a.Attachment, uri, a.prompt))
	return entry, uri, err
}

// add appends an entry, whose file was uploaded as uri ("" for none), to
// the part being built.
func (s *sender) add(entry []byte, pos int64, uri string) error {
	if uri != "" {
		s.uploads = append(s.uploads, uri)
		if s.uploadedAt.IsZero() {
			s.uploadedAt = s.pendingAt
		}
	}
	if s.spool == nil {
		var err error
		if s.spool, err = os.CreateTemp("", "kesoku-batch-*.jsonl"); err != nil {
			return fmt.Errorf("spool the batch: %w", err)
		}
	}
	if s.count == 0 {
		s.first = pos
	}
	if _, err := s.spool.WriteAt(append(entry, '\n'), s.bytes); err != nil {
		return fmt.Errorf("spool the batch: %w", err)
	}
	s.bytes += int64(len(entry)) + 1
	s.count++
	return nil
}

// flush sends the part being built, whose last request is at last, and
// records it. The first interrupt lets the sending finish (the provider
// may have created the batch already); a second abandons it.
func (s *sender) flush(ctx context.Context, last int64) error {
	sendCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.o.Abandon:
			cancel()
		case <-done:
		}
	}()
	n := len(s.st.Parts) + 1
	limits := s.b.BatchLimits()
	inline := limits.MaxInline
	uploadedAt := s.uploadedAt
	if uploadedAt.IsZero() {
		// The input file, should SubmitBatch upload one, is uploaded now.
		uploadedAt = time.Now()
	}
	name := fmt.Sprintf("kesoku %s part %d", s.st.ID, n)
	s.st.Sending = &Sending{Name: name, First: s.first, Last: last, Started: time.Now().UTC()}
	if limits.FileLifetime > 0 {
		s.st.Sending.FilesExpire = uploadedAt.Add(limits.FileLifetime).UTC().Truncate(time.Second)
	}
	if err := s.st.Save(s.path); err != nil {
		return err
	}
	b, err := s.b.SubmitBatch(sendCtx, llm.BatchInput{
		Entries: s.spool, Bytes: s.bytes, Count: s.count,
		Name:   name,
		AsFile: inline > 0 && s.bytes > inline,
	})
	if err != nil {
		if sendCtx.Err() != nil {
			return fmt.Errorf("part %d (requests %d to %d) abandoned while it was sent: the provider may have created it; "+
				"the next submit looks for it before it sends it again: %w", n, s.first, last, err)
		}
		var api *llm.APIError
		if errors.As(err, &api) && api.StatusCode >= 400 && api.StatusCode < 500 {
			// The provider refused it: there is no part to look for.
			s.st.Sending = nil
			if serr := s.st.Save(s.path); serr != nil {
				err = errors.Join(err, serr)
			}
		}
		return fmt.Errorf("send part %d (requests %d to %d): %w", n, s.first, last, err)
	}
	p := Part{Batch: b.ID, First: s.first, Last: last, Bytes: s.bytes, Created: b.Created, Expires: b.Expires}
	if p.Created.IsZero() {
		p.Created = time.Now().UTC()
	}
	p.Files = append(append(p.Files, s.uploads...), b.Files...)
	if len(p.Files) > 0 {
		p.FilesExpire = s.st.Sending.FilesExpire
	}
	s.st.Parts = append(s.st.Parts, p)
	s.st.Sending = nil
	// The part's files are the part's now; a file uploaded for the next
	// request is still waiting.
	s.st.Uploads = slices.DeleteFunc(s.st.Uploads, func(u string) bool { return slices.Contains(s.uploads, u) })
	if err := s.st.Save(s.path); err != nil {
		return fmt.Errorf("the provider took part %d as %s, but %w", n, b.ID, err)
	}
	s.sent += p.Count()
	if s.o.Notify != nil {
		s.o.Notify(fmt.Sprintf("sent part %d, requests %d to %d (%s), as %s", n, p.First, p.Last, byteSize(p.Bytes), p.Batch))
	}
	s.count, s.bytes, s.uploads, s.uploadedAt = 0, 0, nil, time.Time{}
	return nil
}

// interrupted ends a submit cut short: the files uploaded for requests
// of the part never sent are deleted (or left to the next submit, should
// that fail), and the state says where to go on.
func (s *sender) interrupted(ctx context.Context) error {
	if len(s.st.Uploads) > 0 {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if s.forgetUploads(cleanup) != nil {
			s.st.Save(s.path)
		}
	}
	return ctx.Err()
}

// byteSize prints the size of a part sent as people read it: "512 bytes",
// "4.8 MB". It says decimal units where english.Bytes says binary ones,
// as kesoku batch always has.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}
