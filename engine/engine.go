package engine

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Errors returned (wrapped) by the engine; test with errors.Is.
var (
	ErrShape     = errors.New("engine: shape mismatch")
	ErrNotFinite = errors.New("engine: NaN or Inf in input")
	ErrZeroImage = errors.New("engine: zero image")
	ErrClosed    = errors.New("engine: use after Close")
)

// SpinTime is how long an idle worker (or the caller waiting for the
// workers) spins before parking. New copies it, so changing it affects only
// engines created afterwards.
var SpinTime = 50 * time.Microsecond

// Engine computes distances between samples and its prototypes in parallel;
// see the package documentation.
type Engine struct {
	dim, d, p int
	shards    []*shard // shard 0 is run by the caller
	protos    []*linalg.Dense
	owner     []int32 // owner[k]: the shard holding prototype k

	// Handoff. job is written by the caller before seq is bumped and read
	// by the workers after they see the new seq.
	job         job
	seq         atomic.Uint64
	pending     atomic.Int32
	callerWaits atomic.Uint64 // seq of the job the parked caller waits for, 0 if none
	done        chan struct{}
	wg          sync.WaitGroup
	closed      bool
	spin        time.Duration // SpinTime at New
}

type jobKind int

const (
	jobQuit jobKind = iota
	jobDistances
	jobImages
	jobDistancesBatch
	jobImagesBatch
)

type job struct {
	kind        jobKind
	dist, theta []float64
	lambda      []float64
	p           *linalg.Dense
	sets        []*linalg.Dense
	x           []float64
	xnorm       float64
	ldx, n      int
}

// shard is one worker's fixed range of prototypes [lo, hi) and its
// workspace. It is padded so that two shards' hot fields never share a
// cache line.
type shard struct {
	_        [64]byte
	lo, hi   int
	protos   []float64 // prototypes lo..hi, each dim x ld, contiguous
	proj     []float64 // (hi-lo) projections, d x d each
	sigma    []float64 // (hi-lo) x d singular values
	bproj    []float64 // batch forms: all p projections
	bsigma   []float64 // batch forms: p x d
	y        []float64 // Wᵀ x
	sv       *svd.Batch
	err      error
	sleeping atomic.Int32
	wake     chan struct{}
	_        [64]byte
}

// New returns an engine for p prototypes of dim x d (1 <= d <= dim,
// d <= svd.MaxSmall, p >= 1), all zero until set through Prototype. With
// workers <= 0 it uses runtime.GOMAXPROCS(0) workers; workers is capped at
// p. The engine starts workers-1 goroutines; call Close to stop them.
func New(dim, d, p, workers int) (*Engine, error) {
	if d < 1 || dim < d || p < 1 || d > svd.MaxSmall {
		return nil, fmt.Errorf("%w: New(dim=%d, d=%d, p=%d): need 1 <= d <= dim, d <= %d, p >= 1", ErrShape, dim, d, p, svd.MaxSmall)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, p)
	e := &Engine{
		dim: dim, d: d, p: p,
		shards: make([]*shard, workers),
		protos: make([]*linalg.Dense, p),
		owner:  make([]int32, p),
		done:   make(chan struct{}, 1),
		spin:   SpinTime,
	}
	ld := kernels.Stride(d)
	size := dim * ld
	for w := range e.shards {
		lo, hi := w*p/workers, (w+1)*p/workers
		n := hi - lo
		s := &shard{
			lo: lo, hi: hi,
			protos: linalg.AlignedSlice(n * size),
			proj:   linalg.AlignedSlice(n * d * d),
			sigma:  make([]float64, n*d),
			bproj:  linalg.AlignedSlice(p * d * d),
			bsigma: make([]float64, p*d),
			y:      make([]float64, d),
			sv:     svd.NewBatch(d),
			wake:   make(chan struct{}, 1),
		}
		for k := lo; k < hi; k++ {
			e.protos[k] = linalg.NewDenseOn(dim, d, ld, s.protos[(k-lo)*size:(k-lo+1)*size])
			e.owner[k] = int32(w)
		}
		e.shards[w] = s
	}
	for w := 1; w < workers; w++ {
		e.wg.Add(1)
		go e.worker(w)
	}
	return e, nil
}

// Dims returns the sample dimension D, the subspace dimension d and the
// number of prototypes p.
func (e *Engine) Dims() (dim, d, p int) { return e.dim, e.d, e.p }

// Workers returns the number of shards (the caller's plus the goroutines').
func (e *Engine) Workers() int { return len(e.shards) }

// Prototype returns prototype k as a view into the engine's memory (dim x
// d, Stride kernels.Stride(d)). Callers may modify its logical entries
// between calls; the padding columns must stay zero.
func (e *Engine) Prototype(k int) *linalg.Dense { return e.protos[k] }

// SetPrototype copies w (dim x d) into prototype k.
func (e *Engine) SetPrototype(k int, w *linalg.Dense) error {
	if k < 0 || k >= e.p {
		return fmt.Errorf("%w: prototype %d of %d", ErrShape, k, e.p)
	}
	if err := e.checkSet(w, "prototype"); err != nil {
		return err
	}
	e.protos[k].CopyFrom(w)
	return nil
}

// ProjStride returns the row stride of the matrices returned by Projection.
func (e *Engine) ProjStride() int { return e.d }

// Projection returns M_k = Pᵀ W_k (d x d, row-major, stride ProjStride())
// from the last Distances call, as a view valid until the next Distances
// call.
func (e *Engine) Projection(k int) []float64 {
	s := e.shards[e.owner[k]]
	o := (k - s.lo) * e.d * e.d
	return s.proj[o : o+e.d*e.d : o+e.d*e.d]
}

// Close stops the workers and waits for them to exit. It is idempotent.
// Other methods return ErrClosed afterwards.
func (e *Engine) Close() {
	if e.closed {
		return
	}
	e.closed = true
	if len(e.shards) > 1 {
		e.job = job{kind: jobQuit}
		e.publish()
		e.wg.Wait()
	}
}

// run executes the current job: the workers' parts on their goroutines and
// part 0 on the caller's, and returns when all are done.
func (e *Engine) run() {
	for _, s := range e.shards {
		s.err = nil
	}
	if len(e.shards) > 1 {
		e.pending.Store(int32(len(e.shards) - 1))
		e.publish()
	}
	e.part(0)
	if len(e.shards) > 1 {
		e.waitWorkers()
	}
}

// publish bumps the sequence number and wakes parked workers. A worker that
// parks sets its flag before re-reading seq, so either it sees the new seq
// or we see its flag; whoever clears the flag owns the wake-up token.
func (e *Engine) publish() {
	e.seq.Add(1)
	for _, s := range e.shards[1:] {
		if s.sleeping.Load() != 0 && s.sleeping.CompareAndSwap(1, 0) {
			s.wake <- struct{}{}
		}
	}
}

// waitWorkers waits until pending is 0. The parked caller's flag holds the
// job's seq, so that a slow worker finishing an earlier job cannot mistake a
// later wait for its own and hand over a stale token.
func (e *Engine) waitWorkers() {
	q := e.seq.Load()
	deadline := time.Now().Add(e.spin)
	for i := 1; ; i++ {
		if e.pending.Load() == 0 {
			return
		}
		runtime.Gosched()
		if i%16 == 0 && time.Now().After(deadline) {
			break
		}
	}
	e.callerWaits.Store(q)
	if e.pending.Load() == 0 && e.callerWaits.CompareAndSwap(q, 0) {
		return
	}
	<-e.done // the worker that cleared the flag sends exactly one token
}

func (e *Engine) worker(w int) {
	defer e.wg.Done()
	s := e.shards[w]
	var last uint64 // the value at New: a job may be published before this goroutine runs
	for {
		last = e.await(s, last)
		if e.job.kind == jobQuit {
			return
		}
		e.part(w)
		if e.pending.Add(-1) == 0 && e.callerWaits.Load() == last && e.callerWaits.CompareAndSwap(last, 0) {
			e.done <- struct{}{}
		}
	}
}

// await returns the first sequence number after last, spinning and then
// parking.
func (e *Engine) await(s *shard, last uint64) uint64 {
	deadline := time.Now().Add(e.spin)
	for i := 1; ; i++ {
		if q := e.seq.Load(); q != last {
			return q
		}
		runtime.Gosched()
		if i%16 == 0 && time.Now().After(deadline) {
			break
		}
	}
	for {
		s.sleeping.Store(1)
		if q := e.seq.Load(); q != last {
			if !s.sleeping.CompareAndSwap(1, 0) {
				<-s.wake // publish cleared the flag: take its token
			}
			return q
		}
		<-s.wake
		if q := e.seq.Load(); q != last {
			return q
		}
	}
}

// part runs shard w's share of the current job.
func (e *Engine) part(w int) {
	s := e.shards[w]
	j := &e.job
	switch j.kind {
	case jobDistances:
		s.err = e.distances(s, s.proj, s.sigma, j.dist, j.theta, j.p, j.lambda, s.lo, s.hi)
	case jobImages:
		s.err = e.images(s, j.dist, j.theta, j.x, j.xnorm, s.lo, s.hi)
	case jobDistancesBatch:
		lo, hi := e.samples(w, j.n)
		for i := lo; i < hi && s.err == nil; i++ {
			s.err = e.distancesAll(s, j.dist[i*e.p:(i+1)*e.p], j.sets[i], j.lambda)
			if s.err != nil {
				s.err = fmt.Errorf("sample %d: %w", i, s.err)
			}
		}
	case jobImagesBatch:
		lo, hi := e.samples(w, j.n)
		for i := lo; i < hi && s.err == nil; i++ {
			s.err = e.imagesAll(s, j.dist[i*e.p:(i+1)*e.p], j.x[i*j.ldx:i*j.ldx+e.dim])
			if s.err != nil {
				s.err = fmt.Errorf("sample %d: %w", i, s.err)
			}
		}
	}
}

// samples returns worker w's contiguous range of n samples.
func (e *Engine) samples(w, n int) (lo, hi int) {
	nw := len(e.shards)
	return w * n / nw, (w + 1) * n / nw
}

// firstErr returns the error of the lowest shard (the lowest prototype or
// sample index), so that the reported error does not depend on timing.
func (e *Engine) firstErr() error {
	for _, s := range e.shards {
		if s.err != nil {
			return s.err
		}
	}
	return nil
}
