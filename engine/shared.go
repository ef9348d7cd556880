package engine

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Shared is a read-only copy of p prototypes in the engine's packed layout,
// for any number of goroutines at once (a model behind a server). Unlike
// an Engine it owns no goroutine and has no Close: a single-sample call
// (Distances, ImageDistances) runs on the caller's goroutine, with a
// workspace taken from a sync.Pool for the call, so that concurrent callers
// share the one copy of the prototypes and scale with the cores they run
// on. A batch call (DistancesBatch, ImageDistancesBatch) splits its samples
// between the caller and up to workers-1 goroutines started for the call,
// which exit when it returns; an idle Shared uses no CPU. Crew adds
// persistent workers for single-sample calls, for one caller at a time.
//
// Below PivotMinP prototypes and for d < 8 (ownBlockMinDim) they are the
// columns of one 64-byte aligned dim x ld matrix (prototype k at columns
// k·d .. k·d+d-1), the layout of an Engine shard holding them all: a
// chunk's projections or an image's products are one kernel call. From
// d = 8 each prototype is a contiguous dim x d matrix of stride d, one
// after the other: the blocks stream faster than the wide matrix's column
// blocks, as a training engine's do (ownBlockMinDim; a sparse image's
// products interleave the blocks' chains: kernels.SparseABBlocks). From
// PivotMinP prototypes on at d < 8 they are in blocks of sharedBlockFor(d)
// (8, a chunk; 16 at d = 1) side by side, each block a contiguous
// dim x ld matrix. A wide matrix of all p would put each row of a
// projection's reads on its own memory page (at 1,000 prototypes of
// 400 x 5, one core of the Zen 3 VM: 100 scattered projections 0.65 ms
// wide against 0.24 ms in own blocks), and own blocks of d < 8 columns
// leave AtB too few FMA chains to hide their latency (one AtB of 400 x 5
// against 40 columns took 2.1 µs hot on Zen 5, eight against 5 columns
// each 4.1 µs). A model stores a class's prototypes together, so a pruned
// search's candidates of one class are one call a block, read in order; a
// scattered candidate reads about 1.6 cache lines of each of its block's
// rows where its own block would take 0.6 (Zen 5, both cores,
// BenchmarkPredictSet's 1,000 prototypes in 10 classes: pruned 136-148 →
// 99-103 µs, brute 485-501 → 319-350 µs against own blocks). The float32
// copy (NewShared32) stays one wide matrix below PivotMinP prototypes,
// where AtB32 and AtX32 run fastest on many columns, and has the float64
// layout from there on. Results are bit-identical to an Engine's
// with the same prototypes, for any number of workers of either (see the
// package documentation's Determinism).
type Shared struct {
	dim, d, p  int
	workers    int             // batch calls: 0 means runtime.GOMAXPROCS(0) at the call
	ld         int             // row stride of the prototypes' blocks
	bw         int             // prototypes per block: p (one wide matrix) or 1
	data       []float64       // the blocks (dim x ld each), read-only after NewShared
	data32     []float32       // NewShared32: the prototypes rounded to float32, read-only
	ld32, bw32 int             // data32's layout (as ld, bw; see above)
	protos     []*linalg.Dense // read-only views into data
	owner      []int32         // all zero: one shard
	finite     bool
	pool       sync.Pool // *Engine: a one-shard engine over data, no goroutines
	pivOnce    sync.Once
	piv        atomic.Pointer[pivotIndex] // Nearest's pivot index, built once
	stats      [7]atomic.Int64            // Nearest's counts, in Stats' field order

	// kind is the distance computed (SetDistanceKind, before the first
	// call).
	kind DistanceKind
}

// count adds the searches a pooled engine ran since its counts were s0.
func (sh *Shared) count(s0, s1 Stats) {
	for i, v := range [7]int64{
		s1.Searches - s0.Searches, s1.Prototypes - s0.Prototypes, s1.Enclosed - s0.Enclosed,
		s1.Values - s0.Values, s1.Exhaustive - s0.Exhaustive, s1.Skipped - s0.Skipped, s1.Ties - s0.Ties,
	} {
		if v != 0 {
			sh.stats[i].Add(v)
		}
	}
}

// Stats returns the counts of every Nearest and NearestBatch call since
// NewShared, summed over the goroutines that ran them.
func (sh *Shared) Stats() Stats {
	var v [7]int64
	for i := range v {
		v[i] = sh.stats[i].Load()
	}
	return Stats{Searches: v[0], Prototypes: v[1], Enclosed: v[2], Values: v[3], Exhaustive: v[4], Skipped: v[5], Ties: v[6]}
}

// NewShared copies the prototypes (each dim x d, any stride; p =
// len(protos) >= 1) into a new Shared. Batch calls use up to workers
// goroutines in all (the caller's included); workers <= 0 means
// runtime.GOMAXPROCS(0) at the time of each call.
func NewShared(dim, d int, protos []*linalg.Dense, workers int) (*Shared, error) {
	return makeShared(dim, d, protos, workers, false)
}

// NewShared32 is NewShared for float32 mode (see Engine.SetFloat32): the
// projections are computed from the prototypes rounded to float32, which
// it keeps beside the float64 copy; results are bit-identical to an
// Engine's in float32 mode with the same prototypes. Searches are
// exhaustive and images read every pixel, as there.
func NewShared32(dim, d int, protos []*linalg.Dense, workers int) (*Shared, error) {
	return makeShared(dim, d, protos, workers, true)
}

func makeShared(dim, d int, protos []*linalg.Dense, workers int, f32 bool) (*Shared, error) {
	p := len(protos)
	if d < 1 || dim < d || p < 1 || d > svd.MaxSmall {
		return nil, fmt.Errorf("%w: NewShared(dim=%d, d=%d, p=%d): need 1 <= d <= dim, d <= %d, p >= 1", ErrShape, dim, d, p, svd.MaxSmall)
	}
	sh := &Shared{
		dim: dim, d: d, p: p,
		workers: max(workers, 0),
		ld:      shardStride(p, d),
		bw:      p,
		protos:  make([]*linalg.Dense, p),
		owner:   make([]int32, p),
		finite:  true,
		kind:    newKind,
	}
	switch {
	case d >= ownBlockMinDim:
		sh.ld, sh.bw = d, 1
	case p >= sharedOwnMin:
		b := sharedBlockFor(d)
		sh.ld, sh.bw = shardStride(b, d), b
	}
	sh.data = linalg.AlignedSlice(dim * sh.ld * ((p + sh.bw - 1) / sh.bw))
	check := &Engine{dim: dim, d: d, p: p}
	for k, w := range protos {
		if err := check.checkSet(w, "prototype"); err != nil {
			return nil, fmt.Errorf("prototype %d: %w", k, err)
		}
		o := sh.col(k)
		end := o + (dim-1)*sh.ld + d
		sh.protos[k] = linalg.NewDenseOn(dim, d, sh.ld, sh.data[o:end:end])
		sh.protos[k].CopyFrom(w)
		if w.Validate() != nil {
			sh.finite = false
		}
	}
	if f32 {
		sh.ld32, sh.bw32 = sh.ld, sh.bw
		if p < sharedOwnMin {
			sh.ld32, sh.bw32 = shardStride(p, d), p
		}
		sh.data32 = make([]float32, dim*sh.ld32*((p+sh.bw32-1)/sh.bw32))
		for k, w := range sh.protos {
			kernels.Round32Rows(sh.data32[sh.col32(k):], sh.ld32, w.Data, w.Stride, dim, d)
		}
	}
	sh.pool.New = func() any { return sh.newScratch() }
	return sh, nil
}

// sharedOwnMin is the number of prototypes from which a Shared gives each
// its own block (PivotMinP; a variable for the tests).
var sharedOwnMin = PivotMinP

// sharedBlock is the number of prototypes side by side in a block of a
// Shared from sharedOwnMin prototypes on, for d < ownBlockMinDim (see
// sharedBlockFor).
var sharedBlock = chunk

// sharedBlockFor returns the prototypes a block of d columns each holds:
// sharedBlock, doubled while shardStride would pad the block's rows
// beyond kernels.Stride (d = 1: eight columns are a standalone matrix's
// stride, which shardStride widens to 16, so sixteen prototypes fill
// it).
func sharedBlockFor(d int) int {
	b := sharedBlock
	for shardStride(b, d) > kernels.Stride(b*d) {
		b *= 2
	}
	return b
}

// col returns the offset in sh.data of prototype k's first element.
func (sh *Shared) col(k int) int {
	return k/sh.bw*sh.dim*sh.ld + k%sh.bw*sh.d
}

// col32 is col for sh.data32.
func (sh *Shared) col32(k int) int {
	return k/sh.bw32*sh.dim*sh.ld32 + k%sh.bw32*sh.d
}

// shard returns a shard over prototypes lo..hi of sh's storage.
func (sh *Shared) shard(lo, hi int) *shard {
	s := &shard{lo: lo, hi: hi, ld: sh.ld, bw: sh.bw, bs: sh.dim * sh.ld, boff: lo % sh.bw}
	s.protos = sh.data[sh.col(lo-s.boff):]
	if sh.data32 != nil {
		s.ld32, s.bw32, s.bs32, s.boff32 = sh.ld32, sh.bw32, sh.dim*sh.ld32, lo%sh.bw32
		s.protos32 = sh.data32[sh.col32(lo-s.boff32):]
	}
	return s
}

// Dims returns the sample dimension D, the subspace dimension d and the
// number of prototypes p.
func (sh *Shared) Dims() (dim, d, p int) { return sh.dim, sh.d, sh.p }

// Bytes returns the size of the packed prototypes, the memory all callers
// share. A workspace, one per call running at the same moment, is a
// fraction of it: about 12·dim bytes for images, and for sets p·d²
// projections and an svd.Batch (45 KB in all at dim = 784, d = 12, p = 10,
// where the prototypes take 752 KB).
func (sh *Shared) Bytes() int { return len(sh.data)*8 + len(sh.data32)*4 }

// newScratch returns a one-shard engine whose prototypes are sh's memory,
// with no goroutines and never written through. Its workspace is added by
// the first call that needs each part (setSpace, imageSpace, and the batch
// forms' own), so that a workspace that only ever serves images (about
// 12·dim bytes) does not carry the projections and SVD workspace of sets.
func (sh *Shared) newScratch() *Engine {
	s := sh.shard(0, sh.p)
	return &Engine{
		f32: sh.data32 != nil,
		dim: sh.dim, d: sh.d, p: sh.p,
		shards: []*shard{s},
		protos: sh.protos,
		owner:  sh.owner,
		finite: sh.finite,
		kind:   sh.kind,
	}
}

// setSpace gives e what the set forms need: projections, singular values
// and an svd.Batch.
func (sh *Shared) setSpace(e *Engine) {
	if s := e.shards[0]; s.sv == nil {
		e.pivBuild = false
		s.proj = linalg.AlignedSlice((sh.p + chunk) * sh.d * sh.d)
		s.sigma = make([]float64, sh.p*sh.d)
		s.sv = svd.NewBatch(sh.d)
	}
}

// imageSpace gives e what the single-image form needs: y and the list of
// nonzero pixels.
func (sh *Shared) imageSpace(e *Engine) {
	if s := e.shards[0]; s.y == nil {
		s.y = linalg.AlignedSlice(chunk * sh.d)
		e.nzIdx = make([]int32, sh.dim)
		e.nzVal = make([]float64, sh.dim)
	}
}

func (sh *Shared) get() *Engine  { return sh.pool.Get().(*Engine) }
func (sh *Shared) put(e *Engine) { sh.pool.Put(e) }

// Distances is Engine.Distances on the caller's goroutine (there is no
// Projection to read afterwards). It allocates nothing once the pool holds
// a workspace.
func (sh *Shared) Distances(dist, theta []float64, P *linalg.Dense, lambda []float64) error {
	e := sh.get()
	sh.setSpace(e)
	err := e.Distances(dist, theta, P, lambda)
	sh.put(e)
	return err
}

// ImageDistances is Engine.ImageDistances on the caller's goroutine.
func (sh *Shared) ImageDistances(dist, theta []float64, x []float64) error {
	e := sh.get()
	sh.imageSpace(e)
	err := e.ImageDistances(dist, theta, x)
	sh.put(e)
	return err
}

// DistancesBatch is Engine.DistancesBatch: dist[i*p+k] is the distance
// between sets[i] and prototype k, bit-identical to Distances on each set.
// The samples are claimed one at a time by the caller and the goroutines
// started for the call (see split).
func (sh *Shared) DistancesBatch(dist []float64, sets []*linalg.Dense, lambda []float64) error {
	e := sh.get()
	defer sh.put(e)
	if len(dist) != len(sets)*sh.p {
		return fmt.Errorf("%w: DistancesBatch: len(dist) = %d, want %d samples x %d prototypes", ErrShape, len(dist), len(sets), sh.p)
	}
	for i, s := range sets {
		if err := e.checkSet(s, "sample"); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
	}
	if err := e.checkLambda(lambda); err != nil {
		return err
	}
	n, p, d := len(sets), sh.p, sh.d
	if n == 0 {
		return nil
	}
	// Per sample: p projections of 2·dim·d² flops and p small SVDs.
	work := float64(p) * (2*float64(sh.dim)*float64(d*d) + 40*float64(d*d*d))
	return sh.split(e, n, 1, work, func(e *Engine, i0, i1 int) (int, error) {
		s := e.shards[0]
		if s.bproj == nil {
			s.bproj = linalg.AlignedSlice((p + chunk) * d * d)
			s.bsigma = make([]float64, p*d)
		}
		sh.setSpace(e)
		for i := i0; i < i1; i++ {
			if err := e.distancesAll(s, dist[i*p:(i+1)*p], sets[i], lambda); err != nil {
				return i, fmt.Errorf("sample %d: %w", i, err)
			}
		}
		return 0, nil
	})
}

// ImageDistancesBatch is Engine.ImageDistancesBatch (image i at
// x[i*ldx : i*ldx+dim]), bit-identical to ImageDistances on each image;
// blocks of 32 images are claimed by the caller and the goroutines started
// for the call.
func (sh *Shared) ImageDistancesBatch(dist []float64, x []float64, ldx, n int) error {
	if n < 0 || ldx < sh.dim || len(dist) != n*sh.p || (n > 0 && len(x) < (n-1)*ldx+sh.dim) {
		return fmt.Errorf("%w: ImageDistancesBatch: n = %d, ldx = %d, len(x) = %d, len(dist) = %d (dim %d, p %d)", ErrShape, n, ldx, len(x), len(dist), sh.dim, sh.p)
	}
	if n == 0 {
		return nil
	}
	e := sh.get()
	defer sh.put(e)
	p, d := sh.p, sh.d
	work := float64(imageBlock) * 2 * float64(sh.dim) * float64(p*d)
	return sh.split(e, n, imageBlock, work, func(e *Engine, i0, i1 int) (int, error) {
		s := e.shards[0]
		if s.by == nil {
			s.by = linalg.AlignedSlice(imageBlock * p * d)
		}
		return e.imageBlock(s, dist, x, ldx, i0, i1)
	})
}

// splitWork is the least work (in flops) of a batch call for each
// goroutine started to help it: about 100 us on one core of the build
// machine, the order of what waking an idle core costs there (100-800 us,
// during which the caller works on). A smaller call runs on the caller.
var splitWork = 2e6 // tests set 0 to split every batch

// split runs chunks of per samples of n (chunk c is samples c·per ..
// min((c+1)·per, n)-1) through run, claimed one at a time from an atomic
// counter by the caller (with workspace e) and by up to workers-1
// goroutines started for this call, each with a pooled workspace; a
// goroutine the OS starts late finds the chunks taken and exits at once,
// so the caller never waits for a wake-up to be useful. run returns the
// index of the failing sample with its error; split returns the error of
// the lowest index, whoever found it. work is the flops of one chunk.
func (sh *Shared) split(e *Engine, n, per int, work float64, run func(e *Engine, i0, i1 int) (int, error)) error {
	chunks := (n + per - 1) / per
	workers := sh.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	helpers := min(workers, chunks) - 1
	helpers = min(helpers, int(float64(chunks)*work/max(splitWork, 1)))
	j := &splitJob{n: n, per: per, chunks: int64(chunks), run: run, at: -1}
	if helpers > 0 {
		j.wg.Add(helpers)
		for range helpers {
			go func() {
				h := sh.get()
				j.do(h)
				sh.put(h)
				j.wg.Done()
			}()
		}
	}
	j.do(e)
	j.wg.Wait()
	return j.err
}

type splitJob struct {
	next   atomic.Int64
	n, per int
	chunks int64
	run    func(e *Engine, i0, i1 int) (int, error)
	wg     sync.WaitGroup
	mu     sync.Mutex // guards err, at (written on failure only)
	err    error
	at     int
}

func (j *splitJob) do(e *Engine) {
	for {
		c := j.next.Add(1) - 1
		if c >= j.chunks {
			return
		}
		i0 := int(c) * j.per
		at, err := j.run(e, i0, min(i0+j.per, j.n))
		if err != nil {
			j.mu.Lock()
			if j.err == nil || at < j.at {
				j.err, j.at = err, at
			}
			j.mu.Unlock()
		}
	}
}

// Nearest is Engine.Nearest on the caller's goroutine. The pivot index of
// a Shared with many prototypes (see Engine.Nearest) is built once, by the
// first call (with that call's relevances), and read by every later one.
func (sh *Shared) Nearest(r *Nearest, P *linalg.Dense, lambda []float64, labels []int, second bool) error {
	e := sh.get()
	sh.nearestSpace(e, lambda)
	s0 := e.stats
	err := e.Nearest(r, P, lambda, labels, second)
	sh.count(s0, e.stats)
	sh.put(e)
	return err
}

// NearestBatch is Nearest for many samples, r[i] for sets[i], split
// between the caller and goroutines started for the call as
// DistancesBatch is. It stops at the first failing sample it sees and
// returns the error of the lowest failing one found.
func (sh *Shared) NearestBatch(r []Nearest, sets []*linalg.Dense, lambda []float64, labels []int, second bool) error {
	if len(r) != len(sets) {
		return fmt.Errorf("%w: NearestBatch: %d results for %d samples", ErrShape, len(r), len(sets))
	}
	if len(sets) == 0 {
		return nil
	}
	e := sh.get()
	defer sh.put(e)
	sh.nearestSpace(e, lambda)
	// One set: nothing to split. Here rather than in split, whose
	// run closure (stored in the job its helpers share) is allocated
	// by the call whether or not helpers start.
	if len(sets) == 1 {
		s0 := e.stats
		err := e.Nearest(&r[0], sets[0], lambda, labels, second)
		sh.count(s0, e.stats)
		if err != nil {
			return fmt.Errorf("sample 0: %w", err)
		}
		return nil
	}
	work := float64(sh.p) * 2 * float64(sh.dim) * float64(sh.d*sh.d)
	if sh.pivots() != nil {
		work /= 4 // most projections skipped
	}
	return sh.split(e, len(sets), 1, work, func(e *Engine, i0, i1 int) (int, error) {
		sh.nearestSpace(e, lambda)
		s0 := e.stats
		defer func() { sh.count(s0, e.stats) }()
		for i := i0; i < i1; i++ {
			if err := e.Nearest(&r[i], sets[i], lambda, labels, second); err != nil {
				return i, fmt.Errorf("sample %d: %w", i, err)
			}
		}
		return 0, nil
	})
}

// nearestSpace gives the workspace e what Nearest needs: the set forms'
// workspace and the Shared's pivot index (built at the first call that
// needs it).
func (sh *Shared) nearestSpace(e *Engine, lambda []float64) {
	sh.setSpace(e)
	e.pivBuild = false
	if sh.p < pivotMinP || sh.data32 != nil {
		return
	}
	sh.pivOnce.Do(func() {
		b := sh.newScratch()
		sh.setSpace(b)
		b.searchSpace()
		if b.checkLambda(lambda) == nil && b.prunable(lambda) {
			sh.piv.Store(b.buildPivots(lambda))
		}
	})
	e.piv = sh.pivots()
}

// pivots returns the Shared's pivot index, or nil.
func (sh *Shared) pivots() *pivotIndex { return sh.piv.Load() }
