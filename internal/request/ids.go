package request

import (
	"hash/maphash"
)

// IDSet is a set of request ids kept as 64-bit hashes, in an extendible
// hash table of fixed-size, pointer-free tables: a million ids take 12 to
// 18 MiB (the tables fill and split together) and the garbage collector
// never scans them, where a Go map of the same hashes takes 36 MiB. Two different ids share
// a hash with a chance of about n²/2⁶⁵ (one in thirty million for a million
// ids); such a pair would be taken for one.
type IDSet struct {
	seed maphash.Seed
	// dir maps the top depth bits of a hash to its table; a table of local
	// depth d fills 2^(depth-d) entries of dir.
	dir   []*idTable
	depth uint
	n     int
}

// idTableSlots is the size of one table: 64 KiB of hashes (exactly, so
// that the allocator wastes no page on it), split in two when more than
// idTableMax are used, while linear probing is still short.
const (
	idTableSlots = 1 << 13
	idTableMax   = idTableSlots * 7 / 8
)

type idTable struct {
	slots []uint64 // idTableSlots of them; 0 is empty
	n     int
	depth uint
}

func newIDTable(depth uint) *idTable {
	return &idTable{slots: make([]uint64, idTableSlots), depth: depth}
}

// NewIDSet returns an empty set.
func NewIDSet() *IDSet {
	return &IDSet{seed: maphash.MakeSeed(), dir: []*idTable{newIDTable(0)}}
}

func (s *IDSet) hash(id string) uint64 {
	h := maphash.String(s.seed, id)
	if h == 0 {
		h = 1
	}
	return h
}

func (s *IDSet) table(h uint64) *idTable {
	if s.depth == 0 {
		return s.dir[0]
	}
	return s.dir[h>>(64-s.depth)]
}

// insert adds h to t and reports whether it was new.
func (t *idTable) insert(h uint64) bool {
	for i := h & (idTableSlots - 1); ; i = (i + 1) & (idTableSlots - 1) {
		switch t.slots[i] {
		case h:
			return false
		case 0:
			t.slots[i] = h
			t.n++
			return true
		}
	}
}

func (t *idTable) has(h uint64) bool {
	for i := h & (idTableSlots - 1); ; i = (i + 1) & (idTableSlots - 1) {
		switch t.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// Add adds id and reports whether it was new.
func (s *IDSet) Add(id string) bool {
	h := s.hash(id)
	t := s.table(h)
	if !t.insert(h) {
		return false
	}
	s.n++
	if t.n > idTableMax {
		s.split(t)
	}
	return true
}

// split divides a full table in two by the next bit of its hashes,
// doubling the directory when the table already uses all of its bits.
func (s *IDSet) split(t *idTable) {
	if t.depth == s.depth {
		dir := make([]*idTable, 2*len(s.dir))
		for i, x := range s.dir {
			dir[2*i], dir[2*i+1] = x, x
		}
		s.dir, s.depth = dir, s.depth+1
	}
	lo, hi := newIDTable(t.depth+1), newIDTable(t.depth+1)
	bit := 63 - t.depth
	for _, h := range t.slots {
		if h == 0 {
			continue
		}
		if h>>bit&1 == 0 {
			lo.insert(h)
		} else {
			hi.insert(h)
		}
	}
	for i, x := range s.dir {
		if x == t {
			if uint64(i)>>(s.depth-t.depth-1)&1 == 0 {
				s.dir[i] = lo
			} else {
				s.dir[i] = hi
			}
		}
	}
}

// Has reports whether id is in the set.
func (s *IDSet) Has(id string) bool {
	if s == nil {
		return false
	}
	h := s.hash(id)
	return s.table(h).has(h)
}

// Len is the number of ids in the set.
func (s *IDSet) Len() int { return s.n }
