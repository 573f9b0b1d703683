package llm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/message"
)

// TranscriptPath is the file a session's records go to: output when
// given, else the transcript resumed (resume), else the layout's
// transcript of the session.
func TranscriptPath(layout workspace.Layout, output, resume, sessionID string) string {
	switch {
	case output != "":
		return output
	case resume != "":
		return resume
	}
	return layout.Transcript(sessionID)
}

// OpenTranscript opens the transcript at path. A resumed session (old,
// read from the file resume) written to that same file is appended to;
// written to another, it gets the old records first, so that each file is
// a whole transcript.
func OpenTranscript(path, resume string, old []*message.Record) (*records.Writer, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
	}
	if resume != "" && workspace.SamePath(path, resume) {
		w, err := records.Append(path)
		if err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
		return w, nil
	}
	w, err := records.Create(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	if len(old) > 0 {
		if err := w.Append(context.Background(), old...); err != nil {
			w.Close()
			return nil, fmt.Errorf("transcript: %w", err)
		}
	}
	return w, nil
}
