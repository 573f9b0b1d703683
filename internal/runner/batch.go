package runner

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Requests go from the dispatcher to the workers and to the writer in
// batches, so that a channel operation, and the wake-up of the goroutine
// that waits on it, is paid once a batch rather than once a request: at a
// few microseconds a call, handing each request on alone cost more system
// time than the calls. A batch is a row of slots that the workers claim
// one at a time; at most Jobs workers exist, so at most Jobs calls run at
// once, whatever the batches.
const (
	// batchSize is the most slots a batch holds.
	batchSize = 64
	// slowCall is how long a call takes for the calls around it to be
	// spread over every worker: below it, a batch runs on one worker a
	// core, with no goroutine woken for each call.
	slowCall = 50 * time.Microsecond
	// roomBytes bounds the bytes of the requests between the dispatcher
	// and the writer (what they were read from), beyond the Jobs requests
	// that may always run: long requests are not held a batch's worth at
	// a time.
	roomBytes = 16 << 20
	// writerTick bounds how long a finished record waits for the writer
	// while fast calls are still running in its batch (the writer is woken
	// when a batch is done, and when a slow call it waits for returns);
	// a call that outlives it is slow, and the calls after it are spread.
	writerTick = 5 * time.Millisecond
)

// batch is requests read one after another, on their way to records.
type batch struct {
	slots []slot
	// calls is how many of the slots run; the rest were refused as they
	// were read. Set by the dispatcher before the batch is handed on.
	calls int
	// bytes is the size of the batch's requests (request.Request.Size).
	bytes int64
	// next is the next slot a worker claims.
	next atomic.Int32
	// offered says the batch waits in run.work for a worker: one offer at
	// most is pending for a batch.
	offered atomic.Bool
	// workers is how many workers took the batch.
	workers atomic.Int32
	// succ is the batch with calls published after this one: the workers
	// claim the slots of a batch only once every slot of the batches
	// before it is claimed, so that calls start in request order.
	succ atomic.Pointer[batch]
	// left is how many calls have not finished.
	left atomic.Int32
	// awaited is the index (plus one) of the slot the writer waits for,
	// 0 when it waits for none; wake is where it is woken.
	awaited atomic.Int32
	wake    chan struct{}
	// late says the writer has waited a tick for the slot it awaits: the
	// slot wakes it when it finishes, whatever its call took.
	late atomic.Bool
}

// newBatch returns an empty batch for up to size slots.
func newBatch(size int) *batch {
	return &batch{slots: make([]slot, 0, size), wake: make(chan struct{}, 1)}
}

// add returns the next slot of b, which must have room for it.
func (b *batch) add() *slot {
	b.slots = b.slots[:len(b.slots)+1]
	s := &b.slots[len(b.slots)-1]
	s.b = b
	return s
}

// full reports whether b has no room for another slot, or holds
// requests large enough to be handed on alone.
func (b *batch) full() bool { return len(b.slots) == cap(b.slots) || b.bytes >= roomBytes/4 }

// room bounds the slots between the dispatcher and the writer, so that
// memory stays proportional to Jobs, not to the number of requests.
type room struct {
	// slow is the bound while calls are slow: enough for the workers to go
	// on while the writer waits for a call, and what an interrupt aborts
	// as read but not started. fast is the bound while they are fast:
	// full batches for the workers and the writer to go on with, and one
	// more, so that the dispatcher rarely waits for either.
	slow, fast int
	used       atomic.Int64
	// bytes is the size of the requests in the slots used, bounded by
	// roomBytes unless no more than jobs slots are used.
	bytes atomic.Int64
	jobs  int
	freed chan struct{}
}

func (r *room) init(jobs int) {
	r.jobs = jobs
	r.slow = 2*jobs + 64
	r.fast = max(r.slow, 3*batchSize)
	r.freed = make(chan struct{}, 1)
}

// limits are the bounds on the slots in flight and on a batch's, by what
// the calls take.
func (ru *run) limits() (slots, batch int) {
	if ru.slow.Load() {
		return ru.room.slow, min(batchSize, ru.room.slow/4)
	}
	return ru.room.fast, batchSize
}

// nextSize is the size of the batch after one of n slots: requests that
// come one at a time (a pipe written line by line) get small batches, a
// file's the largest the limits allow.
func (ru *run) nextSize(n int) int {
	_, most := ru.limits()
	return min(most, max(8, 2*n))
}

// makeRoom waits until n more slots, holding requests of size bytes, fit,
// and reports false if quit closes first. Once stop closes (an interrupt)
// it waits no more: the requests read are handed on at once, to be
// recorded as aborted.
func (ru *run) makeRoom(n int, bytes int64, quit, stop <-chan struct{}) bool {
	r := &ru.room
	for {
		most, _ := ru.limits()
		used := r.used.Load()
		if used+int64(n) <= int64(max(most, n)) &&
			(used == 0 || used+int64(n) <= int64(r.jobs) || r.bytes.Load()+bytes <= roomBytes) {
			break
		}
		if testHookRoomWait != nil {
			testHookRoomWait()
		}
		select {
		case <-r.freed:
		case <-stop:
			r.used.Add(int64(n))
			r.bytes.Add(bytes)
			return true
		case <-quit:
			return false
		}
	}
	r.used.Add(int64(n))
	r.bytes.Add(bytes)
	return true
}

// testHookRoomWait, when set by a test, is called each time the
// dispatcher waits for room.
var testHookRoomWait func()

// give makes room for n slots holding requests of size bytes (the
// writer, once their records are out).
func (r *room) give(n int, bytes int64) {
	r.bytes.Add(-bytes)
	r.used.Add(-int64(n))
	select {
	case r.freed <- struct{}{}:
	default:
	}
}

// publish hands b on: to the workers when it has calls to run, and to the
// writer. It reports whether the writer still takes batches.
func (ru *run) publish(b *batch, pending chan<- *batch, quit <-chan struct{}) bool {
	if b.calls > 0 {
		b.left.Store(int32(b.calls))
		ru.calls += b.calls
		for ru.workers < ru.r.opts.Jobs && ru.workers < ru.calls {
			ru.workers++
			go ru.worker()
		}
		if ru.tail == nil {
			ru.head.Store(b)
		} else {
			ru.tail.succ.Store(b)
		}
		ru.tail = b
		b.offered.Store(true)
		ru.work <- b
	}
	select {
	case pending <- b:
		return true
	case <-quit:
		return false
	}
}

// worker runs the calls of the batches until the run is over. An offer
// of a batch wakes it; it then claims slots in request order, from the
// oldest batch with a slot left, whichever batch woke it: a call never
// starts while one before it waits unclaimed.
func (ru *run) worker() {
	procs := int32(runtime.GOMAXPROCS(0))
	for {
		select {
		case b := <-ru.work:
			b.offered.Store(false)
		case <-ru.over:
			return
		}
		var joined *batch
		for {
			s := ru.claim()
			if s == nil {
				break
			}
			b := s.b
			if b != joined {
				joined = b
				b.workers.Add(1)
			}
			if s.done.Load() {
				continue // refused as it was read
			}
			// More to claim: the other workers may share the batch (the
			// first that is free takes it) — all of them while calls are
			// slow, one a core while they are fast.
			if b.workers.Load() < procs || ru.slow.Load() {
				ru.offerNext(b)
			}
			ru.runSlot(s)
		}
	}
}

// claim returns the next slot to run in request order, nil when every
// slot published is claimed.
func (ru *run) claim() *slot {
	for {
		b := ru.head.Load()
		if b == nil {
			return nil
		}
		if i := int(b.next.Add(1) - 1); i < len(b.slots) {
			return &b.slots[i]
		}
		next := b.succ.Load()
		if next == nil {
			return nil
		}
		ru.head.CompareAndSwap(b, next)
	}
}

// offerNext offers b, or the batch after it once every slot of b is
// claimed: a worker woken claims from the oldest batch with a slot left,
// whichever batch's offer woke it, so the offer that woke it may have been
// another's; a batch whose slots are all claimed wakes for the next.
func (ru *run) offerNext(b *batch) {
	if int(b.next.Load()) >= len(b.slots) {
		if b = b.succ.Load(); b == nil {
			return // its offer comes as it is published
		}
	}
	ru.offer(b)
}

// offer offers b to the workers, unless an offer of it is pending, it has
// nothing left to claim, or every worker took it already.
func (ru *run) offer(b *batch) {
	if int(b.next.Load()) < len(b.slots) && int(b.workers.Load()) < ru.r.opts.Jobs && b.offered.CompareAndSwap(false, true) {
		select {
		case ru.work <- b:
		default:
			b.offered.Store(false)
		}
	}
}

// runSlot takes one call through what is left of its steps.
func (ru *run) runSlot(s *slot) {
	// The interrupt (or the failure) may have come while the call waited
	// for a worker.
	if ru.cut(s.index) {
		s.rec = ru.r.aborted(s.req, ru.abortReason(s.index), 0)
		ru.finish(s, true)
		return
	}
	if s.validate {
		spec, p := ru.r.checkArgs(s.req)
		if p != nil {
			s.rec = ru.r.failure(s.req, p)
			ru.noteRecord(s)
			ru.finish(s, false)
			return
		}
		s.spec = spec
	}
	if !ru.decide(s) {
		ru.noteRecord(s)
		ru.finish(s, false)
		return
	}
	if testHookExecute != nil {
		testHookExecute(func() { ru.execute(s) })
		return
	}
	ru.execute(s)
}

// finish marks the call finished, after its record is in place, and wakes
// the writer if it waits for the batch to be done, or for this call when
// it was slow.
func (ru *run) finish(s *slot, slow bool) {
	s.done.Store(true)
	b := s.b
	left := b.left.Add(-1)
	if a := b.awaited.Load(); a != 0 && (left == 0 || (slow || b.late.Load()) && &b.slots[a-1] == s) {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
}

// noteSpeed keeps what a call's duration says of the calls around it.
func (ru *run) noteSpeed(d time.Duration) {
	if slow := d >= slowCall; ru.slow.Load() != slow {
		ru.slow.Store(slow)
	}
}
