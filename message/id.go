package message

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
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
		panic("message: no system randomness: " + err.Error())
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

// ids is the process's one generator: every record id, whether a tool
// result's or a session turn's, comes from it, so that ids sort in the
// order they were made even within one millisecond.
var ids = sync.OnceValue(newIDGenerator)

// NewID returns a new time-ordered unique id (a UUIDv7, RFC 9562) for a
// record or a session. Every id of the process comes from one generator,
// so ids sort in the order they were made, even within one millisecond.
func NewID() string { return ids().New() }
