package engine

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Errors returned (wrapped) by the engine; test with errors.Is.
var (
	ErrShape = errors.New("engine: shape mismatch")
	// ErrNotFinite is the module's one "not finite" sentinel: the same
	// value as svd.ErrNotFinite, linalg.ErrNotFinite, subspace.ErrNotFinite
	// and model.ErrNotFinite.
	ErrNotFinite = numerr.ErrNotFinite
	ErrZeroImage = errors.New("engine: zero image")
	ErrClosed    = errors.New("engine: use after Close")
)

// A spinner (an idle worker, or the caller waiting for the workers)
// checks its condition every iteration and calls runtime.Gosched every
// spinYield-th, so that other goroutines of the process still get its P
// within a microsecond or so. A Gosched in every iteration (100 ns each,
// on the Zen 5 VM) took the global run queue's lock ten million times a
// second per spinner, and gave the two goroutines of a split step a
// chance to change Ps (and threads, and the cores whose caches hold their
// shards) at every check. With splitting forced, on a VM whose two cores are far
// apart (a cache line's round trip 470-510 ns), mnist epochs took 38-39
// ms against 35.1-35.2 ms with a Gosched every 16th iteration and yaleb
// 27.8-28.2 against 26.3-26.7 ms in one series (two alternations), 38.9
// against 38.2 and 27.0 against 26.5 ms in another (medians of four);
// the epochs as the race runs them and the predictions did not move.
const spinYield = 16

// spinIterTime is about the time of one spin iteration (an atomic load,
// and a runtime.Gosched with nothing else to run every spinYield-th): 7.3
// ns on the Zen 5 VM.
const spinIterTime = 8 * time.Nanosecond

// DefaultSpinTime is SpinTime until SetSpinTime changes it. It is longer
// than the work a training step does between two Distances calls (about
// 80 us at D=784, d=12: two small SVDs, the updates, two
// orthonormalisations), so that a training loop keeps its workers
// spinning; with 50 us they parked every step and each call paid a
// wake-up.
const DefaultSpinTime = 200 * time.Microsecond

// spinTime holds SpinTime (nanoseconds): read by every engine made (New,
// Shared.Crew, which a model calls at its first prediction, whenever that
// is), so it is an atomic.
var spinTime atomic.Int64

func init() { spinTime.Store(int64(DefaultSpinTime)) }

// SpinTime returns how long an idle worker (or the caller waiting for the
// workers) spins before parking: DefaultSpinTime, or what SetSpinTime set.
func SpinTime() time.Duration { return time.Duration(spinTime.Load()) }

// SetSpinTime sets SpinTime (d <= 0: park at once). New and Shared.Crew
// copy it, so it affects only engines made afterwards: a model's crew is
// made at its first prediction. It may be called at any time, from any
// goroutine.
func SetSpinTime(d time.Duration) { spinTime.Store(int64(max(d, 0))) }

// Engine computes distances between samples and its prototypes in parallel;
// see the package documentation.
type Engine struct {
	dim, d, p int
	shards    []*shard // shard 0 is run by the caller
	protos    []*linalg.Dense
	owner     []int32 // owner[k]: the shard holding prototype k
	taskAt    []int32 // TasksFor's job.at

	// Handoff. job is written by the caller before seq is bumped and read
	// by the workers after they see the new seq.
	job         job
	seq         atomic.Uint64
	remaining   atomic.Int64  // chunks of the current job not yet finished
	helped      atomic.Int64  // items of the current job's chunks run by workers
	absent      int           // published single-sample calls in a row no worker took part in
	solo        int           // single-sample calls left to run on the caller alone
	forceSolo   bool          // SetSolo: every single-sample call runs on the caller alone
	quit        atomic.Bool   // set by Close
	callerWaits atomic.Uint64 // seq of the job the parked caller waits for, 0 if none
	done        chan struct{}
	wg          sync.WaitGroup
	closed      bool
	spin        time.Duration // SpinTime() at New
	// finite reports that every prototype is known to be finite: none has
	// been handed out by Prototype (its view may be written at any time)
	// and every SetPrototype copied finite values. Only then may an image
	// skip its zero pixels (see imageSparse).
	finite bool
	// nzIdx, nzVal: the nonzero pixels of the current single image
	// (kernels.Nonzeros), job.nz of them; written by the caller before a
	// job is published, read by all participants.
	nzIdx []int32
	nzVal []float64
	// The searches' state (search.go), made at their first call: per
	// prototype the trace of the last projection and the bounds on its
	// distance (tier 1 or 2), the candidates, the values' scratch.
	trace, blo, bhi []float64
	tier            []uint8
	group           []uint8 // Winners: 0 for the prototypes of the sample's label, 1 for the others
	cand            []int32
	candCut         []int32 // projectCand: the starts of e.cand's groups, then len(e.cand)
	live            []int32 // Nearest: the prototypes with bounds (tier >= 1), ascending
	all             []int32 // 0, 1, ..., p-1
	bestFirst       []int32 // valueBestFirst's candidates
	traceOnly       bool    // the last project's (read by its chunks): no traces, no tier-1 bounds (values next)
	noTrace         bool    // the last project's: a winners' search enclosing by svd.Gram, no traces where groupN >= 2
	groupN          [2]int  // Winners: the prototypes of each group
	training        bool    // the last project's: a winners' search (Winners), not Nearest's
	vsig, vproj     []float64
	sdist           []float64
	stats           Stats
	exhaustive      bool // SetExhaustive
	f32             bool // SetFloat32: projections from the shards' protos32
	// stale[k]: float32 mode, prototype k's float32 copy was updated by
	// UpdateExact and its float64 values not yet (Fresh).
	stale []bool
	// The float32 shadow (shadow.go): on (SetShadow32), the last search's
	// projections came from it (shadowed), which of them were computed
	// again in float64 (exact64), the prototypes' and the sample's
	// Frobenius norms rounded up (wnorm, pnorm), the sample (lastP), and
	// the prototypes written since their shadow was rounded (dirty32).
	shadow, shadowed bool
	exact64          []bool
	wnorm            []float64
	pnorm            float64
	pgram            []float64 // the sample's float32 Gram matrix (its norm)
	lastP            *linalg.Dense
	// given32: during WinnersRounded, the caller's float32 rounding of
	// the sample, which sampleF32 and sampleShadow return instead of
	// rounding it again.
	given32   []float32
	dirty32   []bool  // Sync(k) since k's shadow was last rounded
	dirtyList []int32 // those prototypes, each once
	badNorms  int     // prototypes whose wnorm is not finite
	race      race    // adaptive splitting: split or solo, by measurement
	// Nearest's pivot index (pivots.go): built at the first call when
	// pivBuild (an Engine's own; a Shared hands its workspaces its own
	// index), dropped when a prototype is set, and never built again
	// after a view of the prototypes was handed out (pivOff).
	piv              *pivotIndex
	pivBuild, pivOff bool
	plo, phi, ogram  []float64
	lones            []float64
	// spinIters is the least number of spin iterations before parking,
	// about SpinTime() of uninterrupted spinning: a spinner the OS
	// deschedules (another process on its core) finds its deadline passed
	// when it runs again, and without this floor parked at once, so that
	// the next call paid a wake-up (100-800 us) instead of a spin.
	spinIters int
	// readOnly: the prototypes are a Shared's memory (Crew); minSplit:
	// single-sample calls of fewer flops run on the caller (0: none).
	readOnly bool
	minSplit float64
	from     *Shared // a Crew's Shared (its pivot index and Stats)

	// kind is the distance computed (SetDistanceKind).
	kind DistanceKind
}

type jobKind int

const (
	jobNone jobKind = iota
	jobDistances
	jobImages
	jobDistancesBatch
	jobImagesBatch
	jobTasks
	jobProject     // a search's projections and tier-1 bounds, chunks as jobDistances
	jobEnclose     // a search's tier-2 bounds of e.cand, chunks of job.csize candidates
	jobProjectList // a search's projections and tier-1 bounds of e.cand, by groups (candGroups)
	jobPivots      // a pruned Nearest's pivots: projections, values, bounds; chunks of 8
)

type job struct {
	kind        jobKind
	dist, theta []float64
	lambda      []float64
	p           *linalg.Dense
	sets        []*linalg.Dense
	x           []float64
	xnorm       float64
	p32         []float32 // float32 mode: p rounded (the caller's shard's p32)
	ldx, n      int
	nz          int         // images: > 0 when only the nz listed pixels are read
	task        func(i int) // jobTasks: task i of n
	at          []int32     // jobTasks (TasksFor): the shard of each task, else nil (Tasks)
	piv         *pivotIndex // jobPivots: the index
	eP          float64     // jobPivots: the sample's orthonormality error
	csize       int         // jobEnclose: candidates per chunk (chunk, or 2·chunk: see refine)
}

// shard is one worker's fixed range of prototypes [lo, hi) and its
// workspace. It is padded so that two shards' hot fields never share a
// cache line.
type shard struct {
	_        [64]byte
	lo, hi   int
	ld       int       // row stride of protos
	protos   []float64 // blocks of bw prototypes side by side (see col)
	bw, bs   int       // prototypes per block, float64s per block (dim·ld)
	boff     int       // lo's place in its block (a Shared's blocks of 8: see col)
	protos32 []float32 // float32 mode: protos rounded to float32, row stride ld32
	ld32     int       // row stride of protos32 (see col32)
	bw32     int       // prototypes per block of protos32
	bs32     int       // float32s per block of protos32 (dim·ld32)
	boff32   int       // lo's place in its block of protos32
	p32      []float32 // float32 mode: a set sample rounded (dim x d, stride d)
	x32      []float32 // float32 mode: an image divided by its norm, rounded (dim)
	nzIdx    []int32   // float32 mode, image batches: a sparse image's nonzero pixels
	nzVal    []float64
	proj     []float64 // (hi-lo) projections, d x d each
	sigma    []float64 // (hi-lo) x d singular values
	bproj    []float64 // batch forms: all p projections
	bsigma   []float64 // batch forms: p x d
	y        []float64 // images: Wᵀ x of one chunk (chunk*d)
	by       []float64 // image batches: imageBlock x p*d
	sv       *svd.Batch
	gram     *svd.Gram   // searches: tier-2 enclosures
	ga, gb   []float64   // searches: a chunk's enclosures
	gproj    []float64   // searches: a chunk's projections side by side
	gmats    [][]float64 // searches: a chunk's projections where they lie (tier 2)
	vproj    []float64   // pivots: a chunk's projections, one after the other
	vsig     []float64   // pivots: their values
	pivFail  bool        // pivots: a chunk this shard's owner ran found no bounds
	err      error       // lowest-index error of the chunks this shard's owner ran
	errAt    int
	claim    atomic.Uint64 // job seq << 32 | next unclaimed chunk
	limit    atomic.Uint64 // job seq << 32 | number of chunks of that job
	sleeping atomic.Int32
	wake     chan struct{}
	_        [64]byte
}

// New returns an engine for p prototypes of dim x d (1 <= d <= dim,
// d <= svd.MaxSmall, p >= 1), all zero until set through SetPrototype. With
// workers <= 0 it uses runtime.GOMAXPROCS(0) workers; workers is capped at
// p. The engine starts workers-1 goroutines; call Close to stop them.
func New(dim, d, p, workers int) (*Engine, error) {
	if d < 1 || dim < d || p < 1 || d > svd.MaxSmall {
		return nil, fmt.Errorf("%w: New(dim=%d, d=%d, p=%d): need 1 <= d <= dim, d <= %d, p >= 1", ErrShape, dim, d, p, svd.MaxSmall)
	}
	e := makeEngine(dim, d, p, workers)
	e.protos = make([]*linalg.Dense, p)
	e.finite, e.pivBuild = true, true // all zero
	workers = len(e.shards)
	for w := range e.shards {
		lo, hi := w*p/workers, (w+1)*p/workers
		n := hi - lo
		ld, bw := shardStride(n, d), n
		if d >= ownBlockMinDim {
			ld, bw = d, 1
		}
		s := &shard{
			lo: lo, hi: hi, ld: ld, bw: bw, bs: dim * ld,
			protos: linalg.AlignedSlice(dim * ld * n / bw),
			proj:   linalg.AlignedSlice((n + chunk) * d * d),
			sigma:  make([]float64, n*d),
			bproj:  linalg.AlignedSlice((p + chunk) * d * d),
			bsigma: make([]float64, p*d),
			y:      linalg.AlignedSlice(chunk * d),
			by:     linalg.AlignedSlice(imageBlock * p * d),
			sv:     svd.NewBatch(d),
			wake:   make(chan struct{}, 1),
		}
		for k := lo; k < hi; k++ {
			o := s.col(k, d)
			end := o + (dim-1)*ld + d
			e.protos[k] = linalg.NewDenseOn(dim, d, ld, s.protos[o:end:end])
			e.owner[k] = int32(w)
		}
		e.shards[w] = s
	}
	e.start()
	return e, nil
}

// makeEngine returns an engine's common part: workers shards (workers <= 0:
// GOMAXPROCS; capped at p), not made yet, the handoff and the image
// lists.
func makeEngine(dim, d, p, workers int) *Engine {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, p)
	spin := SpinTime()
	return &Engine{
		dim: dim, d: d, p: p,
		shards:    make([]*shard, workers),
		owner:     make([]int32, p),
		done:      make(chan struct{}, 1),
		spin:      spin,
		spinIters: int(spin / spinIterTime),
		nzIdx:     make([]int32, dim),
		nzVal:     make([]float64, dim),
		kind:      newKind,
		// A training engine starts solo (see race): never slower than
		// one worker before its first probe of splitting, which on a
		// short run of small steps may never come.
		race: race{solo: true},
	}
}

// start starts the workers of shards 1.. (shard 0 is the caller's).
func (e *Engine) start() {
	for w := 1; w < len(e.shards); w++ {
		e.wg.Add(1)
		go e.worker(w)
	}
}

// The layout of a shard's prototypes: blocks of bw prototypes, block b
// at protos[b·bs:], a dim x (bw·d) matrix of row stride ld with the
// block's prototypes side by side; the float32 copy likewise, in its own
// layout (bw32, ld32, bs32). A Shared's float64 prototypes are one block
// below PivotMinP prototypes and d < ownBlockMinDim, otherwise each its
// own contiguous block (bw = 1, ld = d) from d = ownBlockMinDim, and
// blocks of sharedBlock from PivotMinP prototypes on at smaller d (see
// Shared); its float32 copy is one block below PivotMinP, in the float64
// layout from there on. A training engine's
// float32 copy is one block (bw32 = hi − lo, the prototypes side by side:
// a chunk's projections are one kernel call, and AtB32 runs fastest on
// many columns); its float64 prototypes are one block too for d <
// ownBlockMinDim, otherwise each its own contiguous block (see there).

// ownBlockMinDim is the least d from which a training engine (New), and a
// Shared, gives each float64 prototype its own contiguous dim x d block
// instead of putting them side by side. The projections of a sample against all
// prototypes (kernels.AtB, the floor of an epoch) then stream each
// prototype's bytes once, in order; side by side, AVX2's AtB walks the
// wide matrix in chunks of rows across all column blocks, and the lines
// shared by two column blocks come from L3 twice once the prototypes
// outgrow L2. Measured on the Zen 3 machine (November 2026, AVX2), one
// sample against all prototypes, 64 samples in turn (cold in L1/L2),
// medians of 20 alternating rounds: (D, d, p) = (784, 12, 10) 82 µs in
// own blocks against 95 µs side by side, (400, 25, 28) 489 against
// 527, (600, 8, 10) 21 against 23, (400, 10, 10) and (1024, 20, 15)
// level; (400, 5, 8) 7.0 against 5.8 (d = 5: eight small calls cost more
// than one); BenchmarkEpoch's one-worker x-floor, mnist 2.29-2.35 →
// 2.09-2.15, yaleb 2.29-2.32 → 2.12-2.28. Images: a dense one against
// 10 prototypes of 784 x 12 took 15.4 µs in own blocks against 18.3 side
// by side; a sparse one (15% of its pixels nonzero) took 4.2 against 3.6
// µs as ten SparseAB calls of three FMA chains each, which
// kernels.SparseABBlocks (the blocks' chains interleaved, five blocks a
// call) took back. A Shared (serving) has used the same layout since
// (27 November 2026, eight alternating runs of each binary, medians):
// BenchmarkPredictImage dense 16.8 → 12.9 µs, zeros=80% 4.5 → 4.2 µs, the
// MNIST digit 3.9 → 4.0 µs, float32 level; PredictBatch of 10,000 images
// (four runs) 46.0 → 40.5 ms on two workers, 84 → 75 ms on one. The bits
// do not depend on the layout (every kernel's output is one chain over
// the rows).
var ownBlockMinDim = 8

// col returns the offset in s.protos of prototype k's first element.
// s.protos starts at the block of s.lo, which is prototype boff of it (0
// but for a Shared's shards: their blocks are the Shared's, counted from
// prototype 0, and a shard may start inside one).
func (s *shard) col(k, d int) int {
	i := k - s.lo + s.boff
	return i/s.bw*s.bs + i%s.bw*d
}

// col32 is col for s.protos32.
func (s *shard) col32(k, d int) int {
	i := k - s.lo + s.boff32
	return i/s.bw32*s.bs32 + i%s.bw32*d
}

// runEnd returns the end of the run of prototypes from lo (lo < hi <=
// s.hi) that lie side by side in lo's block of protos.
func (s *shard) runEnd(lo, hi int) int {
	return min(hi, lo+s.bw-(lo-s.lo+s.boff)%s.bw)
}

// runEnd32 is runEnd for protos32.
func (s *shard) runEnd32(lo, hi int) int {
	return min(hi, lo+s.bw32-(lo-s.lo+s.boff32)%s.bw32)
}

// Dims returns the sample dimension D, the subspace dimension d and the
// number of prototypes p.
func (e *Engine) Dims() (dim, d, p int) { return e.dim, e.d, e.p }

// Workers returns the number of shards (the caller's plus the goroutines').
func (e *Engine) Workers() int { return len(e.shards) }

// shardStride is the row stride of a shard of n prototypes of d columns:
// n*d rounded up to a multiple of 8. When that equals kernels.Stride(d) for
// several prototypes (d < 8), it is one line wider, so that a prototype
// view never has the stride of a standalone D x d matrix: code that copies
// such a matrix "padding included" when strides match cannot reach the
// neighbouring prototypes.
func shardStride(n, d int) int {
	ld := kernels.Stride(n * d)
	if n > 1 && ld == kernels.Stride(d) {
		ld += 8
	}
	return ld
}

// Adaptive splitting. Whether splitting a single-sample call between the
// caller and the workers pays depends on more than the call: on a machine
// whose cores are busy with other processes a worker may be descheduled
// in the middle of its share, or wake up late, and the caller waits for
// it; a worker spinning for the next call takes the core the caller
// needs (a busy loop beside a two-worker training made its epochs up to
// 1.8 times slower than one worker's). Estimates from within a call (the
// caller's time per item of its own share, against the time it waited)
// did not catch it: on a shared core the caller's own items slow down as
// much as the split saves. So the engine measures what it is after, the
// wall time per call in either mode, calls and the caller's work between
// them included (Tasks run between them, in the window's mode): the
// sample calls (Distances, ImageDistances, Winners, Nearest: one per
// training step) are counted in windows of at least raceCalls calls and raceMinWindow of wall time (a
// few of the OS's time slices: a window of 5 ms varied by ±60% beside a
// busy loop), each run in one mode, split or solo; the first window of a
// training engine is solo (a Crew's is split). After a hold of
// raceHoldMin windows in one mode, one window runs in the other (a
// probe); if its time per call beats the mean of the hold's last two
// windows (split by a margin of 1/raceMargin, 6%: splitting takes a
// second core, so where the modes are level solo keeps it, and a solo
// probe wins unless it is slower by as much), its mode takes the next
// hold, with the hold back at
// raceHoldMin, else the hold's mode returns with the hold doubled (up to
// raceHoldMax windows: on a quiet machine about one window in 65 is a
// losing probe; quadrupled when the probe lost by more than 25%, so that
// a short run reaches that rate sooner). A probe already half as slow
// again per call as the hold after a quarter of a window (raceCalls/4
// calls and raceMinWindow/4) ends there as a loss (lost): beside a busy
// loop, where splitting takes about twice as long per call, a whole
// window of it cost a short training 3.6% over solo in a model of the
// race (TestRaceProbeCost), the quarter window under 1%. A probe of
// splitting after a solo hold starts with a warm-up (warming): its window
// starts once a worker has taken part in a call, and the calls before it
// count neither in a window nor for the engine's absence rule (run); a
// warm-up of a quarter window ends the probe as lost. The workers have
// parked during the hold, and waking one takes 100-800 us: without the
// warm-up the first calls went unhelped, the absence rule ran the next 32
// on the caller, the worker parked again, and so on (on the Zen 5 VM 175
// and 145 of the first two split windows' 190 mnist calls ran alone), so
// that a probe of splitting measured the caller alone. With it, four
// alternations on that VM (its two cores far apart): mnist on two workers
// 40.2 → 39.1 ms and yaleb 27.8 → 27.1 ms quiet in one series, level in
// another (40.1 → 40.0, 27.6 → 27.5 ms), and level beside a busy loop
// (mnist 42.1 → 41.0, yaleb 35.9 → 35.7 ms; one worker 40.6 and 36.3):
// there splitting gains little on mnist either way; the warm-up is for
// machines where it gains, so that a probe can see it.
// A Crew's window is the time spent in its calls instead (between two
// predictions a server waits for requests, in either mode); it has no
// warm-up. The bits are the same in either mode.
type race struct {
	solo   bool             // the current window's mode
	probe  bool             // the current window is a probe
	inCall bool             // time the calls alone (a Crew), not call to call
	calls  int              // calls in the current window
	start  time.Time        // the current window's first call, or the current call
	spent  time.Duration    // inCall: the window's calls' time so far
	ref    [2]time.Duration // time per call of the hold's last two windows
	left   int              // windows left in the current hold
	hold   int              // current hold, in windows
	// warm: a probe of splitting waits for a worker's first help before
	// its window starts (warmStart: its first call; see Engine.tick).
	warm      bool
	warmStart time.Time
}

const (
	raceCalls     = 32
	raceHoldMin   = 4
	raceHoldMax   = 64
	raceMinWindow = 16 * time.Millisecond
	// raceMargin: splitting must be at least 1/raceMargin faster per call
	// than solo to be chosen (see window).
	raceMargin = 16
)

// tick counts a single-sample call (or Tasks) in the current window and,
// at its end, chooses the mode of the next (see race). A call under
// SetSolo(true) is not counted (its mode is the caller's choice). A
// Crew's window is the time spent in its calls (tock), not the wall time
// from call to call, which on a server is mostly the wait for the next
// request.
func (e *Engine) tick() {
	if e.forceSolo || len(e.shards) == 1 {
		return
	}
	r := &e.race
	now := time.Now()
	if r.inCall {
		r.start = now
		return
	}
	if r.warming(now) {
		return
	}
	r.tick(now)
}

// warming reports whether a call made at now falls in the warm-up of a
// probe of splitting (not counted in any window): the calls before a
// worker first takes part (run: warmed). A warm-up that lasts a quarter
// window ends the probe as lost (the workers' cores are busy elsewhere),
// the hold quadrupled.
func (r *race) warming(now time.Time) bool {
	if !r.warm {
		return false
	}
	if r.warmStart.IsZero() {
		r.warmStart = now
	} else if now.Sub(r.warmStart) > raceMinWindow/4 {
		r.warm = false
		r.lose(4)
		r.calls = 0
	}
	return true
}

// warmed ends a probe's warm-up: a worker took part in a call; the
// probe's window starts at the next call.
func (r *race) warmed() { r.warm, r.calls = false, 0 }

// tick counts a call made at now, from call to call (see Engine.tick),
// and ends the window when it is long enough, or when it is a probe that
// has lost by far (lost).
func (r *race) tick(now time.Time) {
	if r.calls == 0 {
		r.start = now
	}
	r.calls++
	if r.calls <= raceCalls/4 {
		return
	}
	wall := now.Sub(r.start)
	if r.calls > raceCalls && wall >= raceMinWindow ||
		r.probe && wall >= raceMinWindow/4 && r.lost(wall/time.Duration(r.calls-1)) {
		r.window(wall / time.Duration(r.calls-1))
		r.calls, r.start = 1, now
	}
}

// holdPer is the time per call of the hold's last two windows (the mean
// of both, or the one there is; 0 before any).
func (r *race) holdPer() time.Duration {
	if r.ref[1] > 0 {
		return (r.ref[0] + r.ref[1]) / 2
	}
	return r.ref[0]
}

// lost reports whether a probe whose calls took per each so far has lost
// by far (half as long again as the hold's last windows): it ends there,
// after a quarter of a window, instead of running a whole window in the
// slower mode (beside a busy loop a probe of splitting can take twice as
// long per call). A quiet machine's probe of splitting is not cut short
// by the wake-up of parked workers (at most 0.8 ms on the build VM,
// against the quarter window's 4 ms).
func (r *race) lost(per time.Duration) bool {
	ref := r.holdPer()
	return ref > 0 && per > ref+ref/2
}

// tock ends a call that tick started, for a race timing the calls alone.
func (e *Engine) tock() {
	r := &e.race
	if !r.inCall || e.forceSolo || len(e.shards) == 1 || e.singleWork() < e.minSplit {
		return // (a call too small to split is no sample of either mode)
	}
	r.spent += time.Since(r.start)
	if r.calls++; r.calls >= raceCalls && r.spent >= raceMinWindow {
		r.window(r.spent / time.Duration(r.calls))
		r.calls, r.spent = 0, 0
	}
}

// window ends a window whose calls took per each: a probe against the
// hold's last windows decides the next hold's mode; a hold's last window
// starts a probe of the other mode.
func (r *race) window(per time.Duration) {
	if r.probe {
		r.probe = false
		ref := r.holdPer()
		// Splitting takes a second core: it must beat solo by
		// raceMargin to be chosen, and solo wins unless it loses by as
		// much (where the two are level, as beside a busy loop on a
		// small machine, the engine leaves the other core alone).
		win := per < ref+ref/raceMargin
		if !r.solo {
			win = per < ref-ref/raceMargin
		}
		if win {
			r.hold = raceHoldMin // the probe's mode wins
			r.left, r.ref = r.hold, [2]time.Duration{}
		} else {
			grow := 2
			if 4*per > 5*ref {
				grow = 4
			}
			r.lose(grow)
		}
		return
	}
	r.ref[0], r.ref[1] = per, r.ref[0]
	if r.left--; r.left <= 0 {
		r.probe, r.solo = true, !r.solo
		r.warm, r.warmStart = !r.solo && !r.inCall, time.Time{}
	}
}

// lose ends a probe that lost: the hold's mode back, for grow times the
// hold (much longer after a clear loss).
func (r *race) lose(grow int) {
	r.probe, r.solo = false, !r.solo
	r.hold = min(max(grow*r.hold, raceHoldMin), raceHoldMax)
	r.left, r.ref = r.hold, [2]time.Duration{}
}

// Solo reports whether adaptive splitting currently runs single-sample
// calls and Tasks on the caller alone (see race), or the engine has one
// worker, or SetSolo(true).
func (e *Engine) Solo() bool {
	return len(e.shards) == 1 || e.forceSolo || e.race.solo
}

// SetSolo(true) makes every single-sample call (Distances, ImageDistances)
// run on the caller's goroutine alone, without waking a worker, until
// SetSolo(false); batch calls still use every worker, and results are the
// same bits either way. It is for callers that modify the prototypes
// between small calls (a training loop): splitting a call then moves the
// prototypes' cache lines to the worker's core and back at every step,
// which costs more than the split saves when the call is small.
func (e *Engine) SetSolo(on bool) { e.forceSolo = on }

// Tasks runs task(0), ..., task(n-1) and returns when all have returned.
// With more than one worker, task i < Workers() is handed to worker i
// (task 0 to the caller) and, like any chunk, claimed by another
// participant when its worker has not started it; with one worker, under
// SetSolo(true), or while recent single-sample calls found no worker
// running, the caller runs them all, in order. It is for the caller's own
// work between two Distances calls, so that it runs on workers that are
// still spinning from the last call; work on given prototypes (a training
// step's two winners) goes to TasksFor, which places it by owner.
// The tasks must write disjoint memory and give the same result whoever
// runs them (results then do not depend on the number of workers); they
// must not call the engine. task is stored for the call only; passing a
// func value made once (a method value kept by the caller) makes Tasks
// allocation-free.
func (e *Engine) Tasks(n int, task func(i int)) error {
	return e.runTasks(n, nil, task)
}

// TasksFor is Tasks of len(ks) tasks, task i handed to the worker whose
// shard holds prototype ks[i] (the caller for its own shard's) instead of
// worker i: for work that reads and writes that prototype (a training
// step's update of a winner), which that worker's projections keep in its
// core's cache. Run elsewhere, the prototype's cache lines move to the
// other core and back at the next projection: on the 2-core Zen 5 machine
// the two winners' updates of a mnist-shaped step (784 x 12, two AB2 of
// about 6.4 us each alone) took 10.5 and 11.9 us side by side when placed
// as Tasks places them, more than both on one core. A worker with no task
// of its own takes one that its owner has not started, as in Tasks.
// A k outside [0, p) is an ErrShape error (no task runs).
// Allocation-free for len(ks) <= Workers().
func (e *Engine) TasksFor(ks []int, task func(i int)) error {
	if e.closed {
		return ErrClosed
	}
	at := e.taskAt[:0]
	for _, k := range ks {
		if k < 0 || k >= e.p {
			return fmt.Errorf("%w: TasksFor: prototype %d of %d", ErrShape, k, e.p)
		}
		at = append(at, e.owner[k])
	}
	e.taskAt = at
	return e.runTasks(len(ks), at, task)
}

// runTasks is Tasks (at nil: task i to worker i) and TasksFor (task i to
// the shard at[i]).
func (e *Engine) runTasks(n int, at []int32, task func(i int)) error {
	if e.closed {
		return ErrClosed
	}
	if n <= 0 {
		return nil
	}
	// Not a tick: the race counts sample calls (a training step's
	// Winners), and the tasks between two of them are in the time it
	// measures, whichever mode runs them; a caller that runs its own
	// work instead of Tasks when Solo (a trainer's two factorisations in
	// one call) would otherwise make solo calls look longer.
	if e.callerAlone() {
		for i := 0; i < n; i++ {
			task(i)
		}
		return nil
	}
	e.job = job{kind: jobTasks, n: n, task: task, at: at}
	e.run()
	e.job = job{}
	return nil
}

// Prototype returns prototype k as a view into the engine's memory: dim x d
// with the row stride of its shard's storage (the shard's prototypes side
// by side, Stride >= kernels.Stride(d); kernels.Stride(d) when the shard
// has one prototype; on a Crew of a Shared of at least PivotMinP
// prototypes, stored one after the other, Stride = d). Callers may modify its logical entries between calls
// (At, Set, Row, CopyFrom and package linalg's functions touch nothing
// else); the columns between Cols and Stride belong to other prototypes or
// are padding that must stay zero. Since the engine cannot know what is
// written through the view, ImageDistances reads every pixel from then on
// (see SetPrototype).
func (e *Engine) Prototype(k int) *linalg.Dense {
	e.finite = false
	e.piv, e.pivOff = nil, true
	return e.protos[k]
}

// SetPrototype copies w (dim x d) into prototype k. While every prototype
// has been set this way with finite values (and Prototype has never been
// called), ImageDistances may skip the zero pixels of a sparse image: with
// finite prototypes that gives the same bits, and a NaN or ±Inf at a zero
// pixel, which reading it would turn into an error, cannot be there.
func (e *Engine) SetPrototype(k int, w *linalg.Dense) error {
	if e.readOnly {
		return ErrReadOnly
	}
	if k < 0 || k >= e.p {
		return fmt.Errorf("%w: prototype %d of %d", ErrShape, k, e.p)
	}
	if err := e.checkSet(w, "prototype"); err != nil {
		return err
	}
	e.protos[k].CopyFrom(w)
	e.piv = nil
	if w.Validate() != nil {
		e.finite = false
	}
	e.Sync(k)
	return nil
}

// ProjStride returns the row stride of the matrices returned by Projection
// (8d: a chunk's projections lie side by side, as one kernels.AtB writes
// them).
func (e *Engine) ProjStride() int { return chunk * e.d }

// Projection returns M_k = Pᵀ W_k (d x d, row-major, stride ProjStride())
// from the last Distances call (or search), as a view valid until the next
// one: the float64 product always (after a search with the float32 shadow
// on, SetShadow32, it computes it first where the search did not).
func (e *Engine) Projection(k int) []float64 {
	e.reproject(k) // a shadow search's float32 product: float64's first
	return e.projView(k)
}

// projView is Projection(k) as it is stored: with the float32 shadow, a
// float32 product where exact64[k] is not set (any goroutine of a job).
func (e *Engine) projView(k int) []float64 {
	s := e.shards[e.owner[k]]
	o := projOffset(k-s.lo, e.d)
	n := (e.d-1)*chunk*e.d + e.d
	return s.proj[o : o+n : o+n]
}

// projOffset is the offset of the projection of a shard's prototype j in
// its projections: the chunk of 8 prototypes j belongs to has a block of
// d x 8d (stride 8d) at 8d² per chunk, prototype j at column (j mod 8)·d.
// (A shard's projections are (n + 8) d² long: a last chunk of fewer than 8
// prototypes still spans d rows of 8d.)
func projOffset(j, d int) int {
	return (j/chunk)*chunk*d*d + (j%chunk)*d
}

// Close stops the workers and waits for them to exit. It is idempotent.
// Other methods return ErrClosed afterwards.
func (e *Engine) Close() {
	if e.closed {
		return
	}
	e.closed = true
	if len(e.shards) > 1 {
		e.quit.Store(true)
		e.publish()
		e.wg.Wait()
	}
}

// chunk is the number of prototypes computed (and handed to svd.Batch) at
// once: one 8-lane AVX-512 group.
const chunk = 8

// Work is handed out in chunks: a shard's prototypes in runs of chunk (or,
// for the batch forms, its range of samples one by one). A shard's owner
// claims its chunks first, in order, so its prototypes stay in its core's
// cache; a participant that runs out of work then claims the chunks another
// shard's owner has not started (the caller does not wait for a worker whose
// core is busy with another process). Every chunk is computed by the same
// code whoever claims it, so results do not depend on who ran what.
//
// claim[s] packs the job's sequence number (high 32 bits) and the next
// unclaimed chunk of shard s (low 32 bits): a worker that wakes up late for
// a finished job fails its CAS and never reads that job's data. limit[s]
// carries the same tag: a participant still looping over the claims of the
// previous job (it loaded an exhausted claim word just before the caller
// started the next job) must not compare its stale chunk index with the new
// job's chunk count. With an untagged limit it could (claim loaded, new
// limit stored, limit loaded, CAS on the not yet replaced claim word), run a
// chunk of the new job and decrement the new job's remaining count once too
// often: the caller then returned before the last chunk was done or, when
// the stale decrement was the one reaching 0, parked forever (the stale
// participant's tag does not match the waiting caller's, so nobody sent the
// token). remaining counts the chunks not yet finished; the caller returns
// when it is 0.

// run executes the current job and returns when all chunks are done.
func (e *Engine) run() {
	for _, s := range e.shards {
		s.err, s.errAt = nil, -1
	}
	q := e.seq.Load() + 1
	total := 0
	for w, s := range e.shards {
		n := e.chunks(w)
		s.prepare(q, n)
		total += n
	}
	e.remaining.Store(int64(total))
	single := e.job.kind == jobDistances || e.job.kind == jobImages || e.job.kind == jobProject || e.job.kind == jobEnclose || e.job.kind == jobProjectList || e.job.kind == jobPivots
	switch {
	case len(e.shards) == 1:
		e.seq.Store(q)
		e.participate(0, q)
	case single && (e.forceSolo || e.minSplit > 0 && e.singleWork() < e.minSplit):
		// SetSolo(true), or a call too small to split (a Crew's
		// CrewMinWork): the caller alone, as below, without touching the
		// absent/solo bookkeeping of the adaptive case.
		e.participate(0, q)
	case single && e.solo > 0:
		// Recent calls found no worker running (their cores are busy with
		// other processes): do this one alone, without waking anyone, so
		// that no worker arriving late claims a chunk and makes us wait
		// while the OS runs something else. seq is not bumped: q is reused
		// by the next published job, whose prepare starts afresh.
		e.solo--
		e.participate(0, q)
	case single && e.race.solo:
		// Adaptive splitting found the caller alone faster (race).
		e.participate(0, q)
	default:
		e.helped.Store(0)
		e.publish()
		e.participate(0, q)
		e.waitWorkers(q)
		if single && e.race.warm {
			// A probe of splitting: its window starts once a worker
			// has taken part (race.warming); until then no absence is
			// counted (the workers may still be waking up).
			if e.helped.Load() > 0 {
				e.race.warmed()
			}
		} else if single {
			if e.helped.Load() == 0 {
				e.absent++
				if e.absent >= absentCalls {
					e.absent, e.solo = 0, soloCalls
				}
			} else {
				e.absent = 0
			}
		}
	}
}

// callerAlone reports whether the caller runs the next single-sample job
// (and Tasks) alone: run's cases but a Crew's small calls (one worker,
// SetSolo, no worker seen lately, adaptive splitting's solo mode). The
// searches size their work by it (the float32 shadow, the enclosures'
// calls).
func (e *Engine) callerAlone() bool {
	return len(e.shards) == 1 || e.forceSolo || e.solo > 0 || e.race.solo
}

// After absentCalls published single-sample calls in a row in which no
// worker ran a chunk, the next soloCalls such calls run on the caller alone
// (then one is published again, a probe). On an idle machine spinning
// workers always take part and this never triggers.
const (
	absentCalls = 4
	soloCalls   = 32
)

// chunks returns the number of chunks of shard w for the current job.
func (e *Engine) chunks(w int) int {
	s := e.shards[w]
	switch e.job.kind {
	case jobDistances, jobImages, jobProject:
		return (s.hi - s.lo + chunk - 1) / chunk
	case jobEnclose:
		cs := e.job.csize
		lo, hi := e.samples(w, (e.job.n+cs-1)/cs)
		return hi - lo
	case jobProjectList:
		lo, hi := e.samples(w, e.job.n)
		return hi - lo
	case jobPivots:
		lo, hi := e.samples(w, (e.job.n+chunk-1)/chunk)
		return hi - lo
	case jobDistancesBatch:
		lo, hi := e.samples(w, e.job.n)
		return hi - lo
	case jobImagesBatch:
		lo, hi := e.samples(w, e.job.n)
		return (hi - lo + imageBlock - 1) / imageBlock
	case jobTasks:
		if e.job.at != nil {
			n := 0
			for _, a := range e.job.at {
				if int(a) == w {
					n++
				}
			}
			return n
		}
		lo, hi := e.tasks(w, e.job.n)
		return hi - lo
	}
	return 0
}

// tasks returns shard w's range of n tasks: with no more tasks than
// shards, task i is shard i's (the caller runs task 0), else contiguous
// ranges as for samples.
func (e *Engine) tasks(w, n int) (lo, hi int) {
	if n <= len(e.shards) {
		if w < n {
			return w, w + 1
		}
		return n, n
	}
	return e.samples(w, n)
}

// nthOf returns the index of the c-th (from 0) element of at equal to w
// (TasksFor's tasks of shard w); there are more than c.
func nthOf(at []int32, w, c int) int {
	for i, a := range at {
		if int(a) == w {
			if c == 0 {
				return i
			}
			c--
		}
	}
	panic("engine: no such task")
}

// prepare sets shard s up for job q with n chunks (n < 2^32). Called by the
// caller only, before publishing q.
func (s *shard) prepare(q uint64, n int) {
	s.limit.Store(q<<32 | uint64(n))
	s.claim.Store(q << 32)
}

// claimChunk claims the next chunk of shard s for job q.
func (s *shard) claimChunk(q uint64) (int, bool) {
	for {
		c, ok, retry := s.claimFrom(s.claim.Load(), q)
		if !retry {
			return c, ok
		}
	}
}

// claimFrom tries to claim chunk v&(1<<32-1) of job q, v being the claim
// word the caller loaded; retry reports a lost CAS.
func (s *shard) claimFrom(v, q uint64) (c int, ok, retry bool) {
	const low = 1<<32 - 1
	if v>>32 != q&low {
		return 0, false, false
	}
	lim := s.limit.Load()
	if lim>>32 != q&low || v&low >= lim&low {
		return 0, false, false
	}
	if !s.claim.CompareAndSwap(v, v+1) {
		return 0, false, true
	}
	return int(v & low), true, false
}

// participate claims and runs chunks of job q, first from shard w, then
// from the others, using shard w's workspace.
func (e *Engine) participate(w int, q uint64) (ran int) {
	ws := e.shards[w]
	n := len(e.shards)
	for i := 0; i < n; i++ {
		o := (w + i) % n
		s := e.shards[o]
		for {
			c, ok := s.claimChunk(q)
			if !ok {
				break
			}
			items := e.runChunk(ws, o, c)
			ran += items
			if w != 0 {
				e.helped.Add(int64(items))
			}
			if e.remaining.Add(-1) == 0 && e.callerWaits.Load() == q && e.callerWaits.CompareAndSwap(q, 0) {
				e.done <- struct{}{}
			}
		}
	}
	return ran
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

// waitWorkers waits until every chunk of job q is done. The parked caller's
// flag holds q, so that a participant finishing an earlier job cannot
// mistake a later wait for its own and hand over a stale token.
func (e *Engine) waitWorkers(q uint64) {
	var deadline time.Time // read at the first check: most waits end before it
	for i := 1; ; i++ {
		if e.remaining.Load() == 0 {
			return
		}
		if i%spinYield == 0 {
			runtime.Gosched()
			if i%(4*spinYield) == 0 && spinDone(&deadline, e.spin, i, e.spinIters) {
				break
			}
		}
	}
	e.callerWaits.Store(q)
	if e.remaining.Load() == 0 && e.callerWaits.CompareAndSwap(q, 0) {
		return
	}
	<-e.done // the participant that cleared the flag sends exactly one token
}

// spinDone reports whether a spin that has run i iterations should park:
// at least minIters iterations and spin of time since its first check
// (which sets *deadline: a clock read costs about 0.1 us on a VM, and most
// spins end before 64 iterations, so they read none).
func spinDone(deadline *time.Time, spin time.Duration, i, minIters int) bool {
	now := time.Now()
	if deadline.IsZero() {
		*deadline = now.Add(spin)
	}
	return i >= minIters && now.After(*deadline)
}

func (e *Engine) worker(w int) {
	defer e.wg.Done()
	s := e.shards[w]
	var last uint64 // the value at New: a job may be published before this goroutine runs
	for {
		last = e.await(s, last)
		if e.quit.Load() {
			return
		}
		e.participate(w, last)
	}
}

// await returns the first sequence number after last, spinning and then
// parking.
func (e *Engine) await(s *shard, last uint64) uint64 {
	var deadline time.Time
	for i := 1; ; i++ {
		if q := e.seq.Load(); q != last {
			return q
		}
		if i%spinYield == 0 {
			runtime.Gosched()
			if i%(4*spinYield) == 0 && spinDone(&deadline, e.spin, i, e.spinIters) {
				break
			}
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

// runChunk runs chunk c of shard o of the current job with the workspace of
// ws, and records the error with the lowest index in ws.
func (e *Engine) runChunk(ws *shard, o, c int) (items int) {
	s := e.shards[o]
	j := &e.job
	var err error
	at := 0
	items = 1
	switch j.kind {
	case jobDistances, jobImages:
		lo := s.lo + c*chunk
		hi := min(lo+chunk, s.hi)
		at, items = lo, hi-lo
		if j.kind == jobDistances {
			off := lo - s.lo
			err = e.distances(ws, s.proj[projOffset(off, e.d):], s.sigma[off*e.d:], j.dist, j.theta, j.p, j.p32, j.lambda, lo, hi)
		} else {
			err = e.images(ws, j.dist, j.theta, j.x, j.xnorm, lo, hi)
		}
	case jobProject:
		lo := s.lo + c*chunk
		hi := min(lo+chunk, s.hi)
		items = hi - lo
		e.projectChunk(ws, s, j.p, j.lambda, lo, hi)
	case jobEnclose:
		cs := j.csize
		lo, _ := e.samples(o, (j.n+cs-1)/cs)
		c0 := (lo + c) * cs
		c1 := min(c0+cs, j.n)
		items = c1 - c0
		e.encloseChunk(ws, j.lambda, c0, c1)
	case jobProjectList:
		lo, _ := e.samples(o, j.n)
		c0, c1 := int(e.candCut[lo+c]), int(e.candCut[lo+c+1])
		items = c1 - c0
		e.projectListChunk(ws, j.p, j.lambda, c0, c1)
	case jobPivots:
		lo, _ := e.samples(o, (j.n+chunk-1)/chunk)
		c0 := (lo + c) * chunk
		c1 := min(c0+chunk, j.n)
		items = c1 - c0
		e.pivotChunk(ws, j.piv, j.p, j.lambda, j.eP, c0, c1)
	case jobDistancesBatch:
		lo, _ := e.samples(o, j.n)
		i := lo + c
		at = i
		if err = e.distancesAll(ws, j.dist[i*e.p:(i+1)*e.p], j.sets[i], j.lambda); err != nil {
			err = fmt.Errorf("sample %d: %w", i, err)
		}
	case jobImagesBatch:
		lo, hi := e.samples(o, j.n)
		i0 := lo + c*imageBlock
		at, err = e.imageBlock(ws, j.dist, j.x, j.ldx, i0, min(i0+imageBlock, hi))
	case jobTasks:
		if j.at != nil {
			j.task(nthOf(j.at, o, c))
			break
		}
		lo, _ := e.tasks(o, j.n)
		j.task(lo + c)
	}
	if err != nil {
		ws.fail(at, err)
	}
	return items
}

// samples returns shard w's contiguous range of n samples.
func (e *Engine) samples(w, n int) (lo, hi int) {
	nw := len(e.shards)
	return w * n / nw, (w + 1) * n / nw
}

// firstErr returns the error with the lowest prototype or sample index, so
// that the reported error does not depend on who ran which chunk.
func (e *Engine) firstErr() error {
	var err error
	at := -1
	for _, s := range e.shards {
		if s.err != nil && (err == nil || s.errAt < at) {
			err, at = s.err, s.errAt
		}
	}
	return err
}
