package gemini

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// quickWait polls every millisecond or two, and gives up only when
// something is wrong: a slow race-detector run must not fail by it.
var quickWait = fileWait{first: time.Millisecond, most: 2 * time.Millisecond, limit: 10 * time.Second}

func TestUpload(t *testing.T) {
	t.Parallel()
	// Just over one of the SDK's 8 MiB chunks, so that the upload takes two.
	big := bytes.Repeat([]byte("0123456789abcdef"), (8<<20)/16+1)
	tests := []struct {
		name   string
		states []string
		data   []byte
		// wantCommands are the upload commands of the requests, then the
		// polls ("" for a GET).
		wantCommands []string
	}{
		{name: "active at once", states: []string{"ACTIVE"}, data: []byte("tiny"),
			wantCommands: []string{"start", "upload, finalize"}},
		{name: "processing, then active", states: []string{"PROCESSING", "PROCESSING", "ACTIVE"}, data: []byte("tiny"),
			wantCommands: []string{"start", "upload, finalize", "", ""}},
		{name: "a state this SDK does not know is waited out", states: []string{"STATE_UNSPECIFIED", "ACTIVE"}, data: []byte("tiny"),
			wantCommands: []string{"start", "upload, finalize", ""}},
		{name: "in chunks", states: []string{"PROCESSING", "ACTIVE"}, data: big,
			wantCommands: []string{"start", "upload", "upload, finalize", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.Gemini, testKey)
			defer srv.Close()
			srv.SetFileStates("", tt.states...)
			p := newProvider(t, srv)

			uri, err := p.upload(t.Context(), bytes.NewReader(tt.data), "video/mp4", "clips/long.mp4", quickWait)
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			ups := srv.Uploads()
			if len(ups) != 1 {
				t.Fatalf("%d files uploaded, want 1", len(ups))
			}
			if uri != ups[0].URI {
				t.Errorf("upload = %q, want the file's URI %q", uri, ups[0].URI)
			}
			if !bytes.Equal(ups[0].Data, tt.data) {
				t.Errorf("uploaded %d bytes, want the %d bytes given", len(ups[0].Data), len(tt.data))
			}
			if ups[0].MIMEType != "video/mp4" || ups[0].DisplayName != "long.mp4" {
				t.Errorf("uploaded as %q named %q, want video/mp4 named long.mp4 (the last element only)", ups[0].MIMEType, ups[0].DisplayName)
			}
			var cmds []string
			for _, r := range srv.FileRequests() {
				cmds = append(cmds, r.Command)
			}
			if diff := cmp.Diff(tt.wantCommands, cmds); diff != "" {
				t.Errorf("Files API requests mismatch (-want +got):\n%s", diff)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d generateContent requests, want none", n)
			}
		})
	}
}

func TestUploadFails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		states  []string
		failure string
		key     string
		// limit replaces quickWait's, to see the wait give up.
		limit   time.Duration
		want    string
		deleted bool
	}{
		{name: "processing fails", states: []string{"PROCESSING", "FAILED"}, failure: "video codec not supported",
			want: "gemini: processing file files/f1 failed: video codec not supported", deleted: true},
		{name: "failed without a reason", states: []string{"FAILED"},
			want: "gemini: processing file files/f1 failed: Gemini gave no reason", deleted: true},
		{name: "never ready", states: []string{"PROCESSING"}, limit: 100 * time.Millisecond,
			want: "gemini: file files/f1 is still PROCESSING after 100ms", deleted: true},
		{name: "wrong key", key: "another-key", want: "API key not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key := testKey
			if tt.key != "" {
				key = tt.key
			}
			srv := llmtest.NewServer(llmtest.Gemini, key)
			defer srv.Close()
			srv.SetFileStates(tt.failure, tt.states...)
			p := newProvider(t, srv)

			wait := quickWait
			if tt.limit > 0 {
				wait.limit = tt.limit
			}
			_, err := p.upload(t.Context(), strings.NewReader("data"), "video/mp4", "a.mp4", wait)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("upload = %v, want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q shows the API key", err)
			}
			ups := srv.Uploads()
			if tt.deleted && (len(ups) != 1 || !ups[0].Deleted) {
				t.Errorf("uploads = %+v, want the unusable file deleted", ups)
			}
		})
	}
}

func TestUploadCancelled(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Gemini, testKey)
	defer srv.Close()
	srv.SetFileStates("", "PROCESSING")
	p := newProvider(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Cancel once the upload is done and the wait for ACTIVE has begun.
	go func() {
		for ctx.Err() == nil {
			for _, r := range srv.FileRequests() {
				if r.Method == http.MethodGet {
					cancel()
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := p.upload(ctx, strings.NewReader("data"), "video/mp4", "a.mp4", fileWait{first: time.Millisecond, most: time.Millisecond, limit: time.Hour})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("upload = %v, want the context's cancellation", err)
	}
	if ups := srv.Uploads(); len(ups) != 1 || !ups[0].Deleted {
		t.Errorf("uploads = %+v, want the abandoned file deleted", ups)
	}
}

// TestUploadMalformedAnswer: the SDK indexes the final answer's "file"
// member unchecked; a server that leaves it out must give an error, not a
// crash.
func TestUploadMalformedAnswer(t *testing.T) {
	t.Parallel()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Goog-Upload-Command") == "start" {
			w.Header().Set("X-Goog-Upload-URL", srv.URL+"/upload/v1beta/files?upload_id=1")
			w.Write([]byte("{}"))
			return
		}
		w.Header().Set("X-Goog-Upload-Status", "final")
		w.Write([]byte(`{"notFile": true}`))
	}))
	defer srv.Close()
	p, err := New(t.Context(), llm.ClientOptions{Model: "gemini-test", APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.upload(t.Context(), strings.NewReader("data"), "video/mp4", "a.mp4", quickWait)
	if err == nil || !strings.Contains(err.Error(), "malformed answer from the Files API") {
		t.Fatalf("upload = %v, want an error about the malformed answer", err)
	}
}
