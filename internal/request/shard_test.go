package request

import (
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  bool
	}{
		{"1/1", Shard{1, 1}, false},
		{"2/8", Shard{2, 8}, false},
		{" 3 / 4 ", Shard{3, 4}, false},
		{"0/3", Shard{}, true},
		{"4/3", Shard{}, true},
		{"a/b", Shard{}, true},
		{"1/0", Shard{}, true},
		{"-1/3", Shard{}, true},
		{"3", Shard{}, true},
		{"1/2/3", Shard{}, true},
		{"1/1000001", Shard{}, true},
	} {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestShardOf: Of counts what Has takes, and every position is in exactly
// one shard.
func TestShardOf(t *testing.T) {
	for n := int64(1); n <= 9; n++ {
		for total := int64(0); total <= 30; total++ {
			var sum int64
			for k := int64(1); k <= n; k++ {
				s := Shard{k, n}
				var has int64
				for p := int64(1); p <= total; p++ {
					if s.Has(p) {
						has++
					}
				}
				if got := s.Of(total); got != has {
					t.Errorf("%v.Of(%d) = %d, Has takes %d", s, total, got, has)
				}
				sum += has
			}
			if sum != total {
				t.Errorf("%d shards of %d requests take %d", n, total, sum)
			}
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "2/8", "0/3", "4/3", "a/b", "9223372036854775807/9223372036854775807", "-0/+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.K < 1 || sh.K > sh.N || sh.N > MaxShards {
			t.Fatalf("ParseShard(%q) = %v", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("%v does not read back: %v, %v", sh, again, err)
		}
	})
}
