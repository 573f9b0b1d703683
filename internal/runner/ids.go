package runner

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"time"
)

// idGenerator makes record ids: UUIDv7 (RFC 9562), time-ordered and, within
// one generator, strictly increasing — the 12 bits after the millisecond
// count calls within the millisecond (the RFC's method 3) and the rest is
// random. It draws its randomness from a ChaCha8 stream seeded once from
// the system, which makes an id cost tens of nanoseconds rather than a
// system call.
type idGenerator struct {
	mu     sync.Mutex
	lastMS int64
	seq    uint16
	rng    *rand.ChaCha8
}

func newIDGenerator() *idGenerator {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		panic("runner: no system randomness: " + err.Error())
	}
	return &idGenerator{rng: rand.NewChaCha8(seed)}
}

// New returns a new id.
func (g *idGenerator) New() string {
	var u [16]byte
	g.mu.Lock()
	ms := time.Now().UnixMilli()
	if ms > g.lastMS {
		g.lastMS, g.seq = ms, 0
	} else {
		// The clock stood still or went back: stay on the last millisecond
		// and count on, borrowing the next millisecond when the counter is
		// full, so that ids never repeat or go backwards.
		g.seq++
		if g.seq > 0xfff {
			g.lastMS++
			g.seq = 0
		}
		ms = g.lastMS
	}
	seq := g.seq
	lo := g.rng.Uint64()
	g.mu.Unlock()

	binary.BigEndian.PutUint64(u[:8], uint64(ms)<<16|0x7000|uint64(seq))
	binary.BigEndian.PutUint64(u[8:], lo&0x3fffffffffffffff|0x8000000000000000)

	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}

// NewID returns a new time-ordered unique id (a UUIDv7): for a run's
// session when none is given. It seeds a generator of its own, so it is
// for occasional ids, not for one per record.
func NewID() string { return newIDGenerator().New() }

// IDSet is a set of request ids kept as 64-bit hashes: a million ids fit
// in about 16 MiB, where the strings themselves would take several times
// that. Two different ids share a hash with a chance of about n²/2⁶⁵ (one in
// thirty million for a million ids); such a pair would be taken for one.
type IDSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
}

// NewIDSet returns an empty set.
func NewIDSet() *IDSet {
	return &IDSet{seed: maphash.MakeSeed(), m: make(map[uint64]struct{})}
}

// Add adds id and reports whether it was new.
func (s *IDSet) Add(id string) bool {
	h := maphash.String(s.seed, id)
	if _, ok := s.m[h]; ok {
		return false
	}
	s.m[h] = struct{}{}
	return true
}

// Has reports whether id is in the set.
func (s *IDSet) Has(id string) bool {
	if s == nil {
		return false
	}
	_, ok := s.m[maphash.String(s.seed, id)]
	return ok
}

// Len is the number of ids in the set.
func (s *IDSet) Len() int { return len(s.m) }
