package records

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
	// stride is 1 for a set, more for a map that keeps stride-1 words
	// beside each hash (the finished records of --resume).
	stride int
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
	// slots holds idTableSlots hashes (0 is empty), each followed by its
	// value in a map.
	slots  []uint64
	stride int
	n      int
	depth  uint
}

func newIDTable(depth uint, stride int) *idTable {
	return &idTable{slots: make([]uint64, idTableSlots*stride), stride: stride, depth: depth}
}

// NewIDSet returns an empty set.
func NewIDSet() *IDSet { return newIDs(1) }

func newIDs(stride int) *IDSet {
	return &IDSet{seed: maphash.MakeSeed(), stride: stride, dir: []*idTable{newIDTable(0, stride)}}
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

// find returns the index in slots of h, or of the empty slot where it
// goes.
func (t *idTable) find(h uint64) int {
	for i := h & (idTableSlots - 1); ; i = (i + 1) & (idTableSlots - 1) {
		if k := int(i) * t.stride; t.slots[k] == h || t.slots[k] == 0 {
			return k
		}
	}
}

// insert adds h (with the words v, in a map) to t and reports whether it
// was new; a hash already there gets v.
func (t *idTable) insert(h uint64, v []uint64) bool {
	k := t.find(h)
	copy(t.slots[k+1:k+t.stride], v)
	if t.slots[k] == h {
		return false
	}
	t.slots[k] = h
	t.n++
	return true
}

// Add adds id and reports whether it was new.
func (s *IDSet) Add(id string) bool {
	_, added := s.entry(id)
	return added
}

// entry returns the words kept with id, adding id (its words zero) when
// it is not there yet, and reports whether it was added. The words are
// the set's own, to change in place, until the next id is added.
func (s *IDSet) entry(id string) (words []uint64, added bool) {
	return s.entryOf(s.hash(id))
}

// entryOf is entry for the id whose hash is h.
func (s *IDSet) entryOf(h uint64) (words []uint64, added bool) {
	t := s.table(h)
	k := t.find(h)
	if t.slots[k] != h {
		t.slots[k] = h
		t.n++
		s.n++
		added = true
		if t.n > idTableMax {
			s.split(t)
			t = s.table(h)
			k = t.find(h)
		}
	}
	return t.slots[k+1 : k+s.stride], added
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
	lo, hi := newIDTable(t.depth+1, s.stride), newIDTable(t.depth+1, s.stride)
	bit := 63 - t.depth
	for k := 0; k < len(t.slots); k += s.stride {
		h, v := t.slots[k], t.slots[k+1:k+s.stride]
		if h == 0 {
			continue
		}
		if h>>bit&1 == 0 {
			lo.insert(h, v)
		} else {
			hi.insert(h, v)
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
	t := s.table(h)
	return t.slots[t.find(h)] != 0
}

// values returns the words kept with id (see entry), nil when id is not
// in the set.
func (s *IDSet) values(id string) []uint64 {
	if s == nil {
		return nil
	}
	h := s.hash(id)
	t := s.table(h)
	k := t.find(h)
	if t.slots[k] == 0 {
		return nil
	}
	return t.slots[k+1 : k+s.stride]
}

// Len is the number of ids in the set.
func (s *IDSet) Len() int { return s.n }
