package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The fake Gemini server also plays the Files API, as the genai SDK speaks
// it: a resumable upload started by
// POST /upload/v1beta/files, its bytes sent to the upload URL in chunks,
// then GET /v1beta/files/{id} until the file is ACTIVE. Its requests are
// kept apart from those of generateContent (see FileRequests), so that a
// test counting model requests counts only those.

// File is a file uploaded to the fake.
type File struct {
	// Name is the resource name, "files/f1"; URI is what requests cite.
	Name, URI   string
	DisplayName string
	MIMEType    string
	// Data is every byte uploaded.
	Data []byte
	// Deleted says the client deleted the file.
	Deleted bool
}

// FileRequest is one request to the fake Files API: its method, path and
// upload command (start, upload, "upload, finalize"); no body.
type FileRequest struct {
	Method, Path, Command string
}

// fileStore is the fake's Files API state. Its zero value serves uploads
// that are PROCESSING when the upload ends and ACTIVE at the first poll.
type fileStore struct {
	mu sync.Mutex
	// states is the life of every file: the upload's final answer carries
	// the first, each GET the next, the last repeats.
	states []string
	// failure is the error message of a FAILED file.
	failure string
	files   []*fakeFile
	log     []FileRequest
	// deleteError, when set, is the message every files.delete fails with
	// (403 PERMISSION_DENIED).
	deleteError string
}

type fakeFile struct {
	File
	uploadID string
	final    bool
	polls    int
}

// SetFileStates sets the states every uploaded file goes through: the
// upload's final answer carries the first, each poll (GET) the next, and
// the last repeats. The default is PROCESSING, ACTIVE. A FAILED state
// carries failure as its error message.
func (s *Server) SetFileStates(failure string, states ...string) {
	s.files.mu.Lock()
	s.files.states, s.files.failure = states, failure
	s.files.mu.Unlock()
}

// SetDeleteError makes every deletion of a file fail with 403
// PERMISSION_DENIED and msg; "" makes them succeed again.
func (s *Server) SetDeleteError(msg string) {
	s.files.mu.Lock()
	s.files.deleteError = msg
	s.files.mu.Unlock()
}

// Uploads returns the files uploaded so far, in order.
func (s *Server) Uploads() []File {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	out := make([]File, len(s.files.files))
	for i, f := range s.files.files {
		out[i] = f.File
		out[i].Data = append([]byte(nil), f.Data...)
	}
	return out
}

// FileRequests returns the Files API requests received so far, in order.
func (s *Server) FileRequests() []FileRequest {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	return append([]FileRequest(nil), s.files.log...)
}

// serveFiles answers r when it is a Files API request, and reports
// whether it was one.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request) bool {
	upload := r.URL.Path == "/upload/v1beta/files"
	_, id, isFile := strings.Cut(r.URL.Path, "/v1beta/files/")
	if !upload && (!isFile || strings.HasPrefix(r.URL.Path, "/upload/")) {
		return false
	}
	store := &s.files
	cmd := r.Header.Get("X-Goog-Upload-Command")
	store.mu.Lock()
	store.log = append(store.log, FileRequest{Method: r.Method, Path: r.URL.Path, Command: cmd})
	store.mu.Unlock()

	req := &Request{Header: r.Header.Clone()}
	if key := s.takeKey(req); key == "" || (s.key != "" && key != s.key) {
		geminiWire{}.writeError(w, http.StatusUnauthorized, "fake: API key not valid. Please pass a valid API key.")
		return true
	}
	switch {
	case upload && cmd == "start" && r.URL.Query().Get("upload_id") == "":
		s.startUpload(w, r)
	case upload:
		s.uploadChunk(w, r, cmd)
	case r.Method == http.MethodGet:
		s.getFile(w, "files/"+id)
	case r.Method == http.MethodDelete:
		s.deleteFile(w, "files/"+id)
	default:
		geminiWire{}.writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("fake gemini: %s %s: method not allowed", r.Method, r.URL.Path))
	}
	return true
}

func (s *Server) startUpload(w http.ResponseWriter, r *http.Request) {
	var body struct {
		File struct {
			DisplayName string `json:"displayName"`
			MIMEType    string `json:"mimeType"`
		} `json:"file"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		geminiWire{}.writeError(w, http.StatusBadRequest, "fake gemini: upload start: "+err.Error())
		return
	}
	if r.Header.Get("X-Goog-Upload-Protocol") != "resumable" {
		geminiWire{}.writeError(w, http.StatusBadRequest, "fake gemini: upload start without X-Goog-Upload-Protocol: resumable")
		return
	}
	mime := r.Header.Get("X-Goog-Upload-Header-Content-Type")
	if mime == "" {
		mime = body.File.MIMEType
	}
	store := &s.files
	store.mu.Lock()
	n := len(store.files) + 1
	f := &fakeFile{uploadID: fmt.Sprintf("up-%d", n), File: File{
		Name:        fmt.Sprintf("files/f%d", n),
		URI:         fmt.Sprintf("%s/v1beta/files/f%d", s.URL, n),
		DisplayName: body.File.DisplayName,
		MIMEType:    mime,
	}}
	store.files = append(store.files, f)
	store.mu.Unlock()
	// A real upload URL lives on another host; the SDK moves it to its
	// base URL's, which the fake's own URL already is.
	w.Header().Set("X-Goog-Upload-URL", s.URL+"/upload/v1beta/files?upload_id="+f.uploadID+"&upload_protocol=resumable")
	w.Header().Set("X-Goog-Upload-Status", "active")
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}

func (s *Server) uploadChunk(w http.ResponseWriter, r *http.Request, cmd string) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		geminiWire{}.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	var f *fakeFile
	for _, c := range store.files {
		if c.uploadID == r.URL.Query().Get("upload_id") {
			f = c
		}
	}
	switch {
	case f == nil:
		geminiWire{}.writeError(w, http.StatusNotFound, "fake gemini: no such upload")
		return
	case f.final:
		geminiWire{}.writeError(w, http.StatusBadRequest, "fake gemini: upload already finalized")
		return
	case cmd != "upload" && cmd != "upload, finalize":
		geminiWire{}.writeError(w, http.StatusBadRequest, fmt.Sprintf("fake gemini: upload command %q", cmd))
		return
	}
	if off, err := strconv.Atoi(r.Header.Get("X-Goog-Upload-Offset")); err != nil || off != len(f.Data) {
		geminiWire{}.writeError(w, http.StatusBadRequest, fmt.Sprintf("fake gemini: upload offset %q, want %d", r.Header.Get("X-Goog-Upload-Offset"), len(f.Data)))
		return
	}
	f.Data = append(f.Data, data...)
	w.Header().Set("Content-Type", "application/json")
	if cmd == "upload" {
		w.Header().Set("X-Goog-Upload-Status", "active")
		w.Write([]byte("{}"))
		return
	}
	f.final = true
	w.Header().Set("X-Goog-Upload-Status", "final")
	w.Write(mustJSON(map[string]any{"file": store.resource(f)}))
}

func (s *Server) getFile(w http.ResponseWriter, name string) {
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	f := store.find(name)
	if f == nil {
		geminiWire{}.writeError(w, http.StatusNotFound, fmt.Sprintf("fake gemini: file %s not found", name))
		return
	}
	f.polls++
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(store.resource(f)))
}

func (s *Server) deleteFile(w http.ResponseWriter, name string) {
	store := &s.files
	store.mu.Lock()
	defer store.mu.Unlock()
	f := store.find(name)
	if f == nil {
		geminiWire{}.writeError(w, http.StatusNotFound, fmt.Sprintf("fake gemini: file %s not found", name))
		return
	}
	if store.deleteError != "" {
		geminiWire{}.writeError(w, http.StatusForbidden, store.deleteError)
		return
	}
	f.Deleted = true
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}

// find returns the live file called name; store.mu is held.
func (store *fileStore) find(name string) *fakeFile {
	for _, f := range store.files {
		if f.Name == name && f.final && !f.Deleted {
			return f
		}
	}
	return nil
}

// resource is the File resource of f as the API shows it now; store.mu is
// held.
func (store *fileStore) resource(f *fakeFile) map[string]any {
	states := store.states
	if len(states) == 0 {
		states = []string{"PROCESSING", "ACTIVE"}
	}
	state := states[min(f.polls, len(states)-1)]
	res := map[string]any{
		"name":        f.Name,
		"displayName": f.DisplayName,
		"mimeType":    f.MIMEType,
		"sizeBytes":   strconv.Itoa(len(f.Data)),
		"uri":         f.URI,
		"state":       state,
		"source":      "UPLOADED",
	}
	if state == "FAILED" {
		res["error"] = map[string]any{"code": 3, "message": store.failure}
	}
	return res
}
