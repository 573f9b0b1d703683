package request

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of N shares of a run's requests, for spreading a batch over
// several machines (kesoku run --shard K/N): the requests at the 1-based
// positions p of the whole run with (p-1) mod N == K-1. The assignment
// needs no count of the requests first, so a stream is sharded as it is
// read. The zero Shard is the whole run.
type Shard struct {
	K, N int64
}

// MaxShards bounds N: more shares than any engine runs at once is a typo.
const MaxShards = 1_000_000

// ParseShard parses "K/N", 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want K/N, the K-th of N shards, e.g. 2/8")
	}
	kv, kerr := strconv.ParseInt(strings.TrimSpace(k), 10, 64)
	nv, nerr := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
	switch {
	case kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("want K/N, two whole numbers, e.g. 2/8")
	case nv < 1 || nv > MaxShards:
		return Shard{}, fmt.Errorf("N must be between 1 and %d", MaxShards)
	case kv < 1 || kv > nv:
		return Shard{}, fmt.Errorf("K must be between 1 and N (%d): shards count from 1", nv)
	}
	return Shard{K: kv, N: nv}, nil
}

// Whole reports whether s is the whole run.
func (s Shard) Whole() bool { return s.N <= 1 }

// Has reports whether the request at the 1-based position pos is s's.
func (s Shard) Has(pos int64) bool { return s.Whole() || (pos-1)%s.N == s.K-1 }

// Of is how many of total requests are s's.
func (s Shard) Of(total int64) int64 {
	if s.Whole() {
		return total
	}
	if total < s.K {
		return 0
	}
	return (total-s.K)/s.N + 1
}

func (s Shard) String() string {
	if s.Whole() {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}
