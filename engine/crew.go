package engine

import (
	"errors"
	"math"
	"sync/atomic"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Crew returns an Engine of workers shards (workers <= 0: runtime.
// GOMAXPROCS(0); capped at p) whose prototypes are sh's own packed memory,
// not a copy: each shard a range of sh's prototypes, so that the engine's
// workers split a single-sample call (Distances, ImageDistances) by
// prototypes, each core reading its share of every row from its own cache,
// like an Engine's shards. The float32 copies (NewShared32) of a Shared
// below PivotMinP prototypes (one wide matrix) are the exception: each
// shard keeps its float32 columns in a contiguous copy
// (half of the float64 prototypes' bytes for the whole crew), because a
// share read at the Shared's stride wastes part of every cache line it
// touches: on the Zen 3 machine, AtX32 of a 784 x 60 share took 2.8-3.0 us
// at the stride of 120 columns and 2.3 us contiguous.
//
// A crew is how a shared model runs one large
// prediction on several cores: the workers start with the crew, spin
// SpinTime() after each call and then park, and stop at Close. The results
// are the bits of sh's (see Shared). Calls are for one goroutine at a time,
// as on any Engine; the crew never writes the prototypes: SetPrototype,
// Sync and SetFloat32 refuse (ErrReadOnly), and Prototype's view must not
// be written.
//
// Nearest on a crew uses its Shared's pivot index and adds its counts to
// the Shared's Stats, as Shared.Nearest does.
//
// A single-sample call smaller than CrewMinWork() flops runs on the caller
// alone (waking a worker costs more than it saves), and the adaptive
// splitting of every Engine (see race) runs calls alone while the split
// loses, e.g. on a machine whose other core is busy.
func (sh *Shared) Crew(workers int) *Engine {
	dim, d, p := sh.dim, sh.d, sh.p
	e := makeEngine(dim, d, p, workers)
	e.protos, e.finite, e.kind, e.f32 = sh.protos, sh.finite, sh.kind, sh.data32 != nil
	// A crew starts split: splitting one sample is what it is for, and
	// calls too small to gain from it (CrewMinWork()) run solo anyway.
	e.readOnly, e.minSplit, e.race.inCall, e.race.solo = true, CrewMinWork(), true, false
	e.from = sh
	workers = len(e.shards)
	// Each worker's range starts at a block of the Shared's where the
	// blocks are small beside it (sharedBlockFor): a run of candidates is
	// then one kernel call in either's chunks.
	bound := func(w int) int {
		b := w * p / workers
		if sh.bw > 1 && sh.bw < p && p >= workers*sh.bw && w < workers {
			b -= b % sh.bw
		}
		return b
	}
	for w := range e.shards {
		lo, hi := bound(w), bound(w+1)
		n := hi - lo
		s := sh.shard(lo, hi)
		s.proj = linalg.AlignedSlice((n + chunk) * d * d)
		s.sigma = make([]float64, n*d)
		s.y = linalg.AlignedSlice(chunk * d)
		s.sv = svd.NewBatch(d)
		s.wake = make(chan struct{}, 1)
		if e.f32 {
			s.p32 = make([]float32, dim*d)
			s.x32 = make([]float32, dim)
		}
		if e.f32 && sh.bw32 == p && p > 1 {
			// The shard's own contiguous copy of its float32 columns
			// (see above): the bits of sh's, which are rounded from the
			// same values.
			s.ld32, s.bw32, s.boff32 = n*d, n, 0
			s.bs32 = dim * s.ld32
			s.protos32 = make([]float32, dim*s.ld32)
			for i := 0; i < dim; i++ {
				copy(s.protos32[i*s.ld32:(i+1)*s.ld32], sh.data32[i*sh.ld32+lo*d:])
			}
		}
		for k := lo; k < hi; k++ {
			e.owner[k] = int32(w)
		}
		e.shards[w] = s
	}
	e.start()
	return e
}

// DefaultCrewMinWork is CrewMinWork until SetCrewMinWork changes it. A
// worker still spinning from the last call takes its share within about
// a microsecond, so the split pays from a few microseconds of work: a
// dense 784-pixel image against 10 prototypes of 12 columns (188,000
// flops, about 16 us on one core) runs in about half that on two, a
// sparse digit (150 nonzero pixels, 36,000 flops) gains little.
const DefaultCrewMinWork = 20e3

// crewMinWork holds CrewMinWork's float64 bits, an atomic for the same
// reason as spinTime.
var crewMinWork atomic.Uint64

func init() { crewMinWork.Store(math.Float64bits(DefaultCrewMinWork)) }

// CrewMinWork returns the least work (flops) of a single-sample call that
// a Crew splits between its workers; a smaller one runs on the caller:
// DefaultCrewMinWork, or what SetCrewMinWork set.
func CrewMinWork() float64 { return math.Float64frombits(crewMinWork.Load()) }

// SetCrewMinWork sets CrewMinWork (flops; 0, a negative value or NaN:
// every call splits; +Inf: none does). Shared.Crew copies it, so it
// affects only crews made afterwards: a model's crew is made at its first
// prediction. It may be called at any time, from any goroutine.
func SetCrewMinWork(flops float64) {
	if !(flops >= 0) {
		flops = 0
	}
	crewMinWork.Store(math.Float64bits(flops))
}

// ErrReadOnly: a write to the prototypes of an engine that shares them
// (Shared.Crew).
var ErrReadOnly = errors.New("engine: prototypes are read-only (a Shared's crew)")

// singleWork returns the flops of the current single-sample job
// (Distances or ImageDistances), or +Inf for any other job.
func (e *Engine) singleWork() float64 {
	p, d := float64(e.p), float64(e.d)
	switch e.job.kind {
	case jobDistances:
		return p * (2*float64(e.dim)*d*d + 40*d*d*d)
	case jobImages:
		px := e.dim
		if e.job.nz > 0 {
			px = e.job.nz
		}
		return 2 * float64(px) * p * d
	}
	return math.Inf(1)
}
