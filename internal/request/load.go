package request

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// Format is a request file's format.
type Format string

// The formats a request file may be in.
const (
	FormatYAML  Format = "yaml"
	FormatJSON  Format = "json"
	FormatJSONL Format = "jsonl"
)

// Formats lists the formats by name, for help and errors.
var Formats = []Format{FormatYAML, FormatJSON, FormatJSONL}

// ParseFormat reads a --format value; "" means: by extension, or sniffed
// for standard input.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case "yaml", "yml":
		return FormatYAML, nil
	case "json":
		return FormatJSON, nil
	case "jsonl", "ndjson", "jsonlines":
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("unknown format %q: want yaml, json or jsonl", s)
}

// FormatOf returns the format a file's extension names.
func FormatOf(name string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return FormatYAML, true
	case ".json":
		return FormatJSON, true
	case ".jsonl", ".ndjson":
		return FormatJSONL, true
	}
	return "", false
}

// Limits on a request file, so that hostile input gets an error rather
// than the machine's memory. Every format is read a request at a time, in
// memory bounded by the largest request.
const (
	// MaxLine is the longest line of a JSON Lines file, and the largest
	// request of a JSON file; a longer line gets an invalid_request record
	// and the stream goes on.
	MaxLine = 16 << 20
	// maxYAMLNodes bounds the values one request expands to, aliases
	// counted each time they are used, and the values aliases add up to in
	// a document: a billion laughs stops here.
	maxYAMLNodes = 1 << 20
)

// ParseError says a file cannot be parsed; nothing of it may run.
type ParseError struct {
	Pos yamlpos.Pos
	Msg string
	// Source is the line the error is on, when known, for a caret display.
	Source string
	// Format, when set, is the format the file seems to be in: giving it
	// is the other way out, after Msg's.
	Format Format
}

func (e *ParseError) Error() string {
	if e.Format != "" {
		return e.Pos.String() + ": " + e.Msg + ", or give its format: " + string(e.Format)
	}
	return e.Pos.String() + ": " + e.Msg
}

// FormatError says a file's name does not tell its format, and none was
// given.
type FormatError struct {
	Name, Ext string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: unknown extension %q: want .yaml, .yml, .json, .jsonl or .ndjson, or give the format", e.Name, e.Ext)
}

// Snippet returns the offending line with a caret under the column, or ""
// when the line is not known.
func (e *ParseError) Snippet() string {
	if e.Source == "" || e.Pos.Line == 0 {
		return ""
	}
	return yamlpos.SnippetOf(e.Source, e.Pos.Line, e.Pos.Col)
}

// EmptyError says a file holds no request at all (nothing, blank lines,
// comments, an empty list): a mistake, not a run of nothing.
type EmptyError struct {
	Name string
}

func (e *EmptyError) Error() string { return e.Name + " holds no requests" }

// RequestError says what is wrong with one request of a file, and where:
// the request gets an invalid_request record, and the others run.
type RequestError struct {
	Pos yamlpos.Pos
	Msg string
}

func (e *RequestError) Error() string { return e.Pos.Prefix(e.Msg) }

// File is one request file, opened. A YAML or JSON file is read whole by
// Open, so that a file that does not parse stops the run before anything
// runs, its requests kept in a spool that is read as they are taken; a
// JSON Lines file is read once, line by line, as its requests are taken.
type File struct {
	Name   string
	Format Format
	// SessionID is the file's own session_id (of its first document), ""
	// when it has none.
	SessionID string

	// lines is what the requests are read from, one a line: the file, or
	// the spool of a YAML or JSON file, which holds count requests.
	lines  io.Reader
	spool  *spool
	closer io.Closer
	count  int
	// sessions holds the session_id of each document of a YAML file that
	// has one.
	sessions map[int]string
	err      error
	// path is the file's path, "" for standard input.
	path string
	// others counts the records that were no requests.
	others otherCount
	// aheadLimit, when set (tests), bounds the bytes read ahead in place
	// of aheadBytes; aheadHook is aheadRoom.hook.
	aheadLimit int64
	aheadHook  func(held int64, waits bool)
}

// Open opens the request file name ("-" is stdin, read from stdin) in
// format, or in the format its extension names, or, for stdin, the format
// its first line shows. A YAML or JSON file is read whole before Open
// returns, and its error (a *ParseError when it has a position) stops the
// run before anything runs; cancelling ctx stops the reading.
func Open(ctx context.Context, name string, format Format, stdin io.Reader) (*File, error) {
	var r io.Reader
	var closer io.Closer
	display := name
	if name == "-" {
		r, display = stdin, "<stdin>"
	} else {
		f, err := OpenInput(ctx, name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s is a directory", name)
		}
		r, closer = f, f
		if err == nil && !st.Mode().IsRegular() {
			// A FIFO or a device may never say more: read as standard
			// input is, until an interrupt.
			r = NewInterruptibleReader(ctx, f)
		}
		if format == "" {
			var ok bool
			if format, ok = FormatOf(name); !ok {
				f.Close()
				return nil, &FormatError{Name: name, Ext: filepath.Ext(name)}
			}
		}
	}
	file, err := open(ctx, display, format, r, closer)
	if closer != nil && (err != nil || file.spool != nil) {
		closer.Close() // read whole, or not to be read
	}
	if err != nil {
		return nil, err
	}
	if name != "-" {
		file.path = name
	}
	return file, nil
}

// OpenInput opens the file name to read, waiting for a FIFO's writer
// only as long as ctx allows: opening a FIFO blocks until something opens
// it to write, which may be never. Every file kesoku reads once as it
// comes (request files, the records files diff compares) is opened so.
func OpenInput(ctx context.Context, name string) (*os.File, error) {
	if st, err := os.Stat(name); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(name)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			// The open ends when a writer comes, if one ever does.
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

func open(ctx context.Context, name string, format Format, r io.Reader, closer io.Closer) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	skipByteOrderMark(br)
	f := &File{Name: name, Format: format}
	r = br
	if format == "" || format == FormatJSONL {
		read, line, n, whole, err := firstLine(br)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, pathCause(err))
		}
		if len(line) == 0 {
			return nil, &EmptyError{Name: name} // nothing but blank lines
		}
		r = io.MultiReader(bytes.NewReader(read), br)
		if format == "" {
			f.Format = sniff(line, whole)
		} else if err := checkJSONLines(name, line, n, whole); err != nil {
			return nil, err
		}
		if f.Format == FormatJSONL {
			f.lines, f.closer = r, closer
			return f, nil
		}
	}
	if format != "" || f.Format != FormatJSON {
		return f, f.load(ctx, r)
	}
	// Sniffed input that starts with { or [ may be YAML in flow style
	// ({name: a, args: {x: 1}}), which is not JSON: read as YAML, it is
	// taken as YAML; otherwise the JSON error is the one to show. So it is
	// kept, to be read twice.
	tmp, tmpName, err := tempFile("kesoku-stdin-*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file for %s: %w", name, err)
	}
	defer func() {
		tmp.Close()
		if tmpName != "" {
			os.Remove(tmpName)
		}
	}()
	if _, err := io.Copy(tmp, r); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, pathCause(err))
	}
	tmp.Seek(0, io.SeekStart)
	err = f.load(ctx, tmp)
	if err != nil && ctx.Err() == nil {
		yf := &File{Name: name, Format: FormatYAML}
		tmp.Seek(0, io.SeekStart)
		if yf.load(ctx, tmp) == nil {
			return yf, nil
		}
	}
	return f, err
}

// load reads a YAML or JSON file into its spool.
func (f *File) load(ctx context.Context, r io.Reader) error {
	sp, err := newSpool()
	if err != nil {
		return err
	}
	if f.Format == FormatYAML {
		err = f.loadYAML(ctx, r, sp)
	} else {
		err = f.loadJSON(ctx, r, sp)
	}
	if err == nil && sp.n == 0 {
		err = &EmptyError{Name: f.Name}
	}
	if err == nil {
		f.lines, err = sp.rewind()
	}
	if err != nil {
		sp.Close()
		return err
	}
	f.spool, f.closer, f.count = sp, sp, sp.n
	return nil
}

// pathCause is err without an *os.PathError around it that names the
// operation and the file the caller's message already names.
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// skipByteOrderMark drops a UTF-8 byte order mark, which some editors
// write at the start of a file: JSON does not allow it, and nobody means
// it as part of the first request. It waits for a second byte only when
// the first is the mark's.
func skipByteOrderMark(br *bufio.Reader) {
	if b, err := br.Peek(1); err != nil || b[0] != 0xEF {
		return
	}
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
}

// firstLine reads br up to the end of its first line with something on
// it, and returns what it read, that line's text and number, and whether
// the line is whole: a line longer than MaxLine is cut there. It reads no
// further than the end of that line, so that a stream's first request is
// not held back waiting for more input.
func firstLine(br *bufio.Reader) (read, line []byte, number int, whole bool, err error) {
	for number = 1; ; number++ {
		start := len(read)
		b, err := br.ReadSlice('\n')
		read = append(read, b...)
		for errors.Is(err, bufio.ErrBufferFull) && len(read)-start <= MaxLine {
			b, err = br.ReadSlice('\n')
			read = append(read, b...)
		}
		line = trimSpace(read[start:])
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return read, line, number, false, nil
		case err != nil && !errors.Is(err, io.EOF):
			return nil, nil, 0, false, err
		case len(line) > 0 || err != nil || len(read) > MaxLine:
			return read, line, number, true, nil
		}
	}
}

// sniff tells the format of standard input from its first line: a JSON
// object on its own is JSON Lines (a single-line JSON file holds the same
// one request) unless it is a whole {"requests": [...]} file on one line,
// other input starting with { or [ is JSON (or, if it does not parse as
// JSON, YAML in flow style: see Open), and anything else YAML. A first
// line longer than MaxLine is no request of JSON Lines.
func sniff(line []byte, whole bool) Format {
	if len(line) == 0 {
		return FormatJSONL
	}
	switch line[0] {
	case '{':
		if v, err := new(jsonParser).parse(line); whole && err == nil {
			if m, _ := v.(map[string]any); m != nil {
				if _, ok := m["requests"]; ok {
					return FormatJSON
				}
			}
			return FormatJSONL
		}
		return FormatJSON
	case '[':
		return FormatJSON
	}
	return FormatYAML
}

// checkJSONLines refuses a JSON Lines file whose first line starts a JSON
// value that it does not finish: pretty-printed JSON, which read as JSON
// Lines would give one baffling error record per line.
func checkJSONLines(name string, line []byte, n int, whole bool) error {
	if !whole || len(line) == 0 || (line[0] != '{' && line[0] != '[') {
		return nil
	}
	_, err := new(jsonParser).parse(line)
	var je *syntaxError
	if !errors.As(err, &je) || je.Off < len(line) {
		return nil // a whole value, or a bad line: its record says so
	}
	return &ParseError{Pos: yamlpos.Pos{File: name, Line: n, Col: 1}, Source: string(line),
		Msg: "this looks like JSON, not JSON Lines: its first line starts a value that goes on over the next lines, " +
			"and JSON Lines holds one whole request on each line; name the file .json", Format: FormatJSON}
}

// Len is the number of requests in the file, or -1 for a stream whose
// length is not known until it ends.
func (f *File) Len() int {
	if f.spool == nil {
		return -1
	}
	return f.count
}

// Count returns how many requests the file holds. For a JSON Lines file
// it reads the file a second time, on its own, counting the lines that are
// not blank without parsing them: for a progress bar's total, before or
// while the requests are taken. Only a regular file can be read twice:
// for standard input, a named pipe or a device, Count returns -1 (reading
// a pipe again would take its requests from the run).
func (f *File) Count(ctx context.Context) (int64, error) {
	if f.spool != nil {
		return int64(f.count), nil
	}
	if f.path == "" {
		return -1, nil
	}
	if st, err := os.Stat(f.path); err != nil || !st.Mode().IsRegular() {
		return -1, err
	}
	r, err := os.Open(f.path)
	if err != nil {
		return -1, err
	}
	defer r.Close()
	buf := make([]byte, 256<<10)
	var n int64
	inLine := false // a line with something on it has begun
	first := true
	for {
		m, err := io.ReadFull(r, buf)
		chunk := buf[:m]
		if first {
			chunk = bytes.TrimPrefix(chunk, []byte("\uFEFF"))
			first = false
		}
		for len(chunk) > 0 {
			if !inLine {
				i := 0
				for i < len(chunk) && isSpace(chunk[i]) {
					i++
				}
				if chunk = chunk[i:]; len(chunk) == 0 {
					break
				}
				inLine = true
				n++
			}
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				break
			}
			chunk, inLine = chunk[i+1:], false
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return n, nil
		case err != nil:
			return -1, err
		case ctx.Err() != nil:
			return -1, ctx.Err()
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// Err is the error that ended the reading of a stream early, if any.
func (f *File) Err() error { return f.err }

// Close closes the file.
func (f *File) Close() error {
	if f.closer != nil {
		err := f.closer.Close()
		f.closer = nil
		return err
	}
	return nil
}

// Requests yields the file's requests in order, leaving out the Message
// records that are no requests (see Others). A file's requests can be
// taken once.
func (f *File) Requests() iter.Seq[*Request] {
	return func(yield func(*Request) bool) {
		for req := range f.stream {
			if req.other {
				f.others.n.Add(1)
				continue
			}
			if !yield(req) {
				return
			}
		}
	}
}

// stream yields one request per non-blank line of a JSON Lines file or of
// a spool. A line that is not a request, or is longer than MaxLine,
// becomes a request carrying its error: one invalid_request record, and
// the stream goes on.
func (f *File) stream(yield func(*Request) bool) {
	if n := parsers(); n > 1 {
		f.streamAhead(yield, n)
	} else {
		f.streamOne(yield)
	}
}

// streamOne is stream on the calling goroutine alone.
func (f *File) streamOne(yield func(*Request) bool) {
	lines := f.lineReader()
	p := &jsonParser{}
	for lines.Scan() {
		pos := yamlpos.Pos{File: f.Name}
		pos.Line, pos.Col = lines.Pos()
		var req *Request
		if lines.TooLong() {
			req = tooLongRequest(pos)
		} else {
			var doc int
			req = parseLine(p, lines.Bytes(), pos, f.spool != nil, &doc)
			if f.spool != nil {
				req.SessionID = f.sessions[doc]
			}
		}
		if !yield(req) {
			return
		}
	}
	f.err = lines.Err()
}

// lineReader reads the file's lines, or its spool's.
func (f *File) lineReader() *records.Reader {
	lines := records.NewReader(f.lines, f.Name)
	if f.spool != nil {
		lines.SetMaxLine(MaxLine + 64) // a request and its position
	} else {
		lines.SetMaxLine(MaxLine)
	}
	return lines
}

// parseLine parses one line at pos. A spool's line says where its
// request was and which document it came from (doc), before the request.
func parseLine(p *jsonParser, line []byte, pos yamlpos.Pos, inSpool bool, doc *int) *Request {
	if inSpool {
		pos.Line, pos.Col, *doc, line = spooled(line)
	}
	req := parseRequestLine(p, line, pos)
	req.Size = len(line)
	return req
}

func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func trimSpace(b []byte) []byte {
	b = trimLeftSpace(b)
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseRequestLine decodes one JSON Lines request. The top-level object is
// read key by key into the request, without a map in between.
func parseRequestLine(p *jsonParser, line []byte, pos yamlpos.Pos) *Request {
	b := p.builder(pos)
	d := p.start(line)
	if d.PeekKind() != '{' {
		v, err := p.parse(line)
		if err != nil {
			return b.syntaxError(err)
		}
		return b.notAnObject(v)
	}
	_, err := d.ReadToken()
	for err == nil && d.PeekKind() != '}' {
		var key string
		var v any
		if key, err = p.str(); err != nil {
			break
		}
		if v, err = p.value(); err == nil {
			b.set(key, v)
		}
	}
	if err == nil {
		if _, err = d.ReadToken(); err == nil { // the object's end
			err = p.end() // and nothing after it
		} else {
			err = p.mistake(err)
		}
	}
	if err != nil {
		return b.syntaxError(err)
	}
	return b.finish()
}

// requestBuilder turns the members of a request object into a Request,
// gathering every problem into the request's Err.
type requestBuilder struct {
	req      *Request
	problems []string
	// nameKey and argsKey are the keys the name and the arguments came
	// from, once they have come.
	nameKey, argsKey string
	rec              recordMembers
}

// builder returns the parser's builder, made new for a request at pos:
// one builder a parser, rather than one a request, which was a quarter of
// the bytes a batch allocates.
func (p *jsonParser) builder(pos yamlpos.Pos) *requestBuilder {
	p.b = requestBuilder{req: &Request{Pos: pos}}
	return &p.b
}

// requestKeys are the members a request object may have. "type" is
// accepted, and "function" read, so that a Claude tool_use block or an
// OpenAI tool call can be pasted in as it is; a Message record's type says
// whether it is a request (record.go).
var requestKeys = []string{"id", "name", "args", "input", "arguments", "type", "function"}

func (b *requestBuilder) problem(format string, args ...any) {
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

func (b *requestBuilder) set(key string, v any) {
	switch key {
	case "id":
		switch x := v.(type) {
		case string:
			b.req.ID = x
		case int64:
			b.req.ID = strconv.FormatInt(x, 10)
		case uint64:
			b.req.ID = strconv.FormatUint(x, 10)
		case nil:
		default:
			b.problem("id: expected a string, got %s", registry.Describe(v))
		}
	case "name":
		b.setName(key, v)
	case "args", "input", "arguments":
		b.setArgs(key, v)
	case "function":
		b.setFunction(v)
	case "type":
		// See requestKeys, and record.go.
		b.rec.typ, _ = v.(string)
	default:
		if slices.Contains(recordKeys, key) {
			b.setRecordMember(key, v)
			return
		}
		msg := fmt.Sprintf("unknown field %q: a request has id, name and args (or input, or arguments)", key)
		if s := english.Suggest(key, requestKeys); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		b.rec.otherAt = append(b.rec.otherAt, keyAt{len(b.problems), key})
		b.problems = append(b.problems, msg)
	}
}

func (b *requestBuilder) setName(key string, v any) {
	if b.nameKey != "" {
		b.problem("both %q and %q given: a request names its tool once", b.nameKey, key)
		return
	}
	b.nameKey = key
	if s, ok := v.(string); ok {
		b.req.Name = s
	} else if v != nil {
		b.problem("%s: expected a string, got %s", key, registry.Describe(v))
	}
}

// setArgs sets the arguments from args, input or arguments (key), or
// OpenAI's function.arguments.
func (b *requestBuilder) setArgs(key string, v any) {
	if b.argsKey != "" {
		b.problem("both %q and %q given: a request has one of args, input, arguments", b.argsKey, key)
		return
	}
	b.argsKey = key
	switch x := v.(type) {
	case map[string]any:
		b.req.Args = x
	case nil:
	case string:
		// A tool_call record's content is a string where the model sent
		// arguments that were no JSON object: they are read as OpenAI's.
		if key != "arguments" && key != "function.arguments" && key != "content" {
			b.problem("%s: expected an object, got a string (only arguments may be a JSON-encoded string)", key)
			return
		}
		b.req.Args = b.decodeArguments(key, x)
	default:
		b.problem("%s: expected an object, got %s", key, registry.Describe(v))
	}
}

// setFunction takes the name and arguments from the function member of an
// OpenAI tool call, {"id": ..., "type": "function", "function": {"name":
// ..., "arguments": "..."}}, so that one can be pasted in as it is.
func (b *requestBuilder) setFunction(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		b.problem(`function: expected an object {"name": ..., "arguments": "..."}, as in an OpenAI tool call, got %s`, registry.Describe(v))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "name":
			b.setName("function.name", m[k])
		case "arguments":
			b.setArgs("function.arguments", m[k])
		default:
			b.problem("unknown field %q in function: an OpenAI tool call's function has name and arguments", k)
		}
	}
}

// decodeArguments decodes OpenAI's arguments (the member key): a
// JSON-encoded object. An empty string is taken for no arguments, as some
// OpenAI-compatible servers send it for a function without parameters.
func (b *requestBuilder) decodeArguments(key, s string) map[string]any {
	data := trimLeftSpace([]byte(s))
	if len(data) == 0 {
		return nil
	}
	if data[0] != '{' {
		b.problem("%s: expected a JSON-encoded object, got %s", key, strconv.Quote(truncateForMessage(s)))
		return nil
	}
	v, err := new(jsonParser).parse(data)
	if err != nil {
		b.problem("%s: not a JSON-encoded object: at offset %d: %v", key, err.(*syntaxError).Off+len(s)-len(data), err)
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

func (b *requestBuilder) finish() *Request {
	switch {
	case b.isOtherRecord():
		b.req.other = true
		return b.req
	case b.rec.typ == string(message.TypeToolCall):
		b.finishRecord()
	}
	if len(b.problems) > 0 {
		b.req.Err = &RequestError{Pos: b.req.Pos, Msg: strings.Join(b.problems, "; ")}
	}
	return b.req
}

func (b *requestBuilder) syntaxError(err error) *Request {
	col := b.req.Pos.Col
	var je *syntaxError
	if errors.As(err, &je) {
		col += je.Off
	}
	pos := b.req.Pos
	pos.Col = col
	b.req.Err = &RequestError{Pos: pos, Msg: "not a JSON request: " + err.Error()}
	return b.req
}

func (b *requestBuilder) notAnObject(v any) *Request {
	b.req.Err = &RequestError{Pos: b.req.Pos, Msg: "expected a request object {\"name\": ..., \"args\": {...}}, got " + registry.Describe(v)}
	return b.req
}

func truncateForMessage(s string) string {
	if len(s) > 40 {
		cut := 40
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}
