package records

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kesoku/kesoku/message"
)

// TypeShardEnd is the type of the line a shard's run (kesoku run --shard
// K/N) writes last, once every request of its share has its record: what
// a part carries for merge to tell a finished shard from one that lost
// its last records (or all of them), which would otherwise look like a
// shard of a shorter run. Any command that writes a share of a run can
// end its part with one.
const TypeShardEnd message.Type = "shard_end"

// ShardEnd is what a shard_end line says, as its content: which shard of
// how many it ended, and how many requests the whole run has, from which
// the shard's own count follows.
type ShardEnd struct {
	Shard    int64 `json:"shard"`
	Shards   int64 `json:"shards"`
	Requests int64 `json:"requests"`
	// Cases and Files, on an eval's shard, are what its JUnit testcases
	// are named by, so that merge names them as the whole eval does: how
	// many cases the whole eval has (Requests counts their runs: a case
	// runs more than once when it is more), and the files of its cases.
	Cases int64       `json:"cases,omitempty"`
	Files []ShardFile `json:"files,omitempty"`
	// Threshold is the eval's --threshold, 0 for none: the merged eval
	// passes by it as the eval unsharded does.
	Threshold float64 `json:"threshold,omitempty"`
}

// ShardFile is a file of an eval's cases, and the position of the first
// run of its cases in the whole eval.
type ShardFile struct {
	Name  string `json:"name"`
	First int64  `json:"first"`
}

// FileAt is the file of the run at position, "" when e names none.
func (e ShardEnd) FileAt(position int64) string {
	name := ""
	for _, f := range e.Files {
		if f.First > position {
			break
		}
		name = f.Name
	}
	return name
}

// Records is how many requests of the run are the shard's: those at
// positions Shard, Shard+Shards, ... up to Requests.
func (e ShardEnd) Records() int64 {
	if e.Requests < e.Shard {
		return 0
	}
	return (e.Requests-e.Shard)/e.Shards + 1
}

// ShardEndRecord is the shard_end line of a shard of the session session.
func ShardEndRecord(session string, e ShardEnd) *message.Record {
	content, _ := json.Marshal(e)
	return &message.Record{
		ID: message.NewID(), SessionID: session, Role: message.RoleTool, Type: TypeShardEnd,
		Status: message.StatusResponded, Content: content, CreatedAt: time.Now().UTC(),
	}
}

// shardEndOf reads the content of a shard_end line.
func shardEndOf(h Head) (ShardEnd, error) {
	var e ShardEnd
	if err := json.Unmarshal(h.Content, &e); err != nil {
		return e, fmt.Errorf("a shard_end line whose content is no shard's end: %w", err)
	}
	if e.Shards < 1 || e.Shard < 1 || e.Shard > e.Shards || e.Requests < 0 {
		return e, fmt.Errorf("a shard_end line of shard %d of %d, of %d requests: no shard of a run", e.Shard, e.Shards, e.Requests)
	}
	return e, nil
}
