package records

import (
	"encoding/binary"
)

// Seen is the set of request ids a run has seen, by which a request whose
// id came before is refused as a duplicate. It is exact — an id is a
// duplicate only of the same id — and small: a batch's ids are most often
// numbered (call_1, call_2, ... as a run names the requests without one,
// or any prefix and a number: req-17, item_9), and the numbers of a
// prefix are kept as bits, one a number where they are dense. A million
// numbered ids take a few hundred KiB. Any other id is kept whole, its
// bytes in pointer-free chunks beside a table of their hashes, so that the
// garbage collector never scans them: about its length and 20 bytes.
type Seen struct {
	// prefixes numbers the prefixes of numbered ids; numbers holds the
	// numbers seen of each.
	prefixes map[string]int
	numbers  []numberSet
	// others holds the hashes of the other ids, each with where the id is
	// in chunks (plus one); an id whose hash another id already has is in
	// collided.
	others   *IDSet
	chunks   [][]byte
	cur      int // the chunk being filled, plus one
	collided map[string]struct{}
	n        int
}

// Bounds on the numbered form: a prefix of at most maxPrefixLen bytes, at
// most maxPrefixes of them (any more are kept as other ids), and a number
// of at most 18 digits, written without leading zeros (so that each
// number has one spelling, and call_07 is not call_7).
const (
	maxPrefixLen = 64
	maxPrefixes  = 256
	maxDigits    = 18
)

// idChunk is the size of the chunks other ids are kept in; an id of more
// than idChunk/4 bytes gets a chunk of its own.
const idChunk = 64 << 10

// NewSeen returns an empty set.
func NewSeen() *Seen { return &Seen{} }

// Add adds id and reports whether it was new.
func (s *Seen) Add(id string) bool {
	var added bool
	if prefix, n, ok := numbered(id); ok {
		added = s.addNumber(id, prefix, n)
	} else {
		added = s.addOther(id)
	}
	if added {
		s.n++
	}
	return added
}

// Len is the number of ids in the set.
func (s *Seen) Len() int { return s.n }

// numbered splits id into a prefix and the number it ends with, when it
// has that form.
func numbered(id string) (prefix string, n uint64, ok bool) {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	digits := id[i:]
	if len(digits) == 0 || len(digits) > maxDigits || len(digits) > 1 && digits[0] == '0' || i > maxPrefixLen {
		return "", 0, false
	}
	for k := 0; k < len(digits); k++ {
		n = n*10 + uint64(digits[k]-'0')
	}
	return id[:i], n, true
}

func (s *Seen) addNumber(id, prefix string, n uint64) bool {
	k, ok := s.prefixes[prefix]
	if !ok {
		if len(s.numbers) >= maxPrefixes {
			return s.addOther(id)
		}
		if s.prefixes == nil {
			s.prefixes = make(map[string]int)
		}
		k = len(s.numbers)
		s.prefixes[prefix] = k
		s.numbers = append(s.numbers, numberSet{})
	}
	return s.numbers[k].add(n)
}

// numberSet is a set of numbers: a bitmap of those below its length, and
// a table of the others. The bitmap grows to take a number only while it
// stays dense — at most 64 bits (8 bytes) a number in it, past its first
// 8 KiB — so that scattered numbers cost their table entry and no more.
type numberSet struct {
	bits  []uint64
	count int // numbers in the bitmap
	// sparse holds each number beyond the bitmap plus one (0 is empty),
	// open addressing with linear probing, its length a power of two.
	sparse  []uint64
	nsparse int
}

// denseFloor is the bitmap every set of numbers may have, in words: 8 KiB.
const denseFloor = 1 << 10

func (ns *numberSet) add(n uint64) bool {
	if n/64 < uint64(len(ns.bits)) {
		return ns.setBit(n) && !ns.hasSparse(n)
	}
	if words := n/64 + 1; words <= uint64(ns.count+1)+denseFloor {
		// Grow by doubling, as far as density allows.
		grown := max(words, uint64(2*len(ns.bits)))
		grown = min(grown, uint64(ns.count+1)+denseFloor)
		bits := make([]uint64, grown)
		copy(bits, ns.bits)
		ns.bits = bits
		return ns.setBit(n) && !ns.hasSparse(n)
	}
	return ns.addSparse(n)
}

// setBit sets n's bit and reports whether it was clear.
func (ns *numberSet) setBit(n uint64) bool {
	w, b := &ns.bits[n/64], uint64(1)<<(n%64)
	if *w&b != 0 {
		return false
	}
	*w |= b
	ns.count++
	return true
}

// mix spreads a number over the table's slots.
func mix(n uint64) uint64 {
	n ^= n >> 33
	n *= 0xff51afd7ed558ccd
	n ^= n >> 33
	return n
}

func (ns *numberSet) slot(n uint64) int {
	mask := uint64(len(ns.sparse) - 1)
	for i := mix(n) & mask; ; i = (i + 1) & mask {
		if v := ns.sparse[i]; v == 0 || v == n+1 {
			return int(i)
		}
	}
}

func (ns *numberSet) hasSparse(n uint64) bool {
	return ns.nsparse > 0 && ns.sparse[ns.slot(n)] != 0
}

func (ns *numberSet) addSparse(n uint64) bool {
	if len(ns.sparse) == 0 {
		ns.sparse = make([]uint64, 16)
	}
	i := ns.slot(n)
	if ns.sparse[i] != 0 {
		return false
	}
	ns.sparse[i] = n + 1
	if ns.nsparse++; ns.nsparse*4 > len(ns.sparse)*3 {
		old := ns.sparse
		ns.sparse = make([]uint64, 2*len(old))
		for _, v := range old {
			if v != 0 {
				ns.sparse[ns.slot(v-1)] = v
			}
		}
	}
	return true
}

// addOther adds an id of no numbered form, kept whole.
func (s *Seen) addOther(id string) bool {
	if s.others == nil {
		s.others = newIDs(2)
	}
	return s.addHashed(id, s.others.hash(id))
}

// addHashed is addOther for an id whose hash is h.
func (s *Seen) addHashed(id string, h uint64) bool {
	words, added := s.others.entryOf(h)
	if added {
		words[0] = s.keep(id) + 1
		return true
	}
	if s.kept(words[0]-1) == id {
		return false
	}
	// Another id has this hash: a chance of about n²/2⁶⁵, kept apart so
	// that neither is taken for the other.
	if _, ok := s.collided[id]; ok {
		return false
	}
	if s.collided == nil {
		s.collided = make(map[string]struct{})
	}
	s.collided[id] = struct{}{}
	return true
}

// keep copies id into the chunks and returns where it is: the chunk's
// index above 24 bits, the offset in it below.
func (s *Seen) keep(id string) uint64 {
	need := binary.MaxVarintLen64 + len(id)
	if need > idChunk/4 {
		// A long id gets a chunk of its own.
		c := binary.AppendUvarint(make([]byte, 0, need), uint64(len(id)))
		s.chunks = append(s.chunks, append(c, id...))
		return uint64(len(s.chunks)-1) << 24
	}
	if s.cur == 0 || len(s.chunks[s.cur-1])+need > cap(s.chunks[s.cur-1]) {
		s.chunks = append(s.chunks, make([]byte, 0, idChunk))
		s.cur = len(s.chunks)
	}
	c := s.chunks[s.cur-1]
	off := len(c)
	c = binary.AppendUvarint(c, uint64(len(id)))
	s.chunks[s.cur-1] = append(c, id...)
	return uint64(s.cur-1)<<24 | uint64(off)
}

// kept is the id kept at loc.
func (s *Seen) kept(loc uint64) string {
	c := s.chunks[loc>>24][loc&(1<<24-1):]
	n, k := binary.Uvarint(c)
	return string(c[k : k+int(n)])
}
