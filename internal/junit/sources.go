package junit

import (
	"sort"
	"sync"
)

// Sources says which file each request of a run came from, by its
// position in the run: the files are read one after another, so a start
// per file is all it keeps, however many requests there are. It is safe
// for use by the goroutine that reads requests and the one that writes
// records at once.
type Sources struct {
	mu     sync.Mutex
	starts []int64 // the position of each file's first request
	names  []string
}

// Begin notes that the requests from position at on come from name.
func (s *Sources) Begin(name string, at int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts = append(s.starts, at)
	s.names = append(s.names, name)
}

// Of is the name of the file the request at position pos came from, ""
// when no file was begun by then.
func (s *Sources) Of(pos int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > pos }) - 1
	if i < 0 {
		return ""
	}
	return s.names[i]
}
