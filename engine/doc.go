// Package engine is the parallel distance engine of GRLGQ: it holds the p
// prototypes (D x d orthonormal bases) and computes the principal angles and
// weighted geodesic distances between one sample (a subspace P, or a single
// image x) and every prototype, or between many samples and every prototype.
//
// # Distances
//
// An Engine or a Shared computes one DistanceKind (SetDistanceKind; a
// Shared's before its first call): Geodesic, Σ_i λ_i θ_i² with θ_i =
// arccos(clamp(σ_i, 0, 1)) of the singular values σ of Pᵀ W (θ_1² for an
// image), the default; or Chordal, Σ_i λ_i sin²θ_i with sin²θ_i = (1 −
// y_i)(1 + y_i), y_i = clamp(σ_i, 0, 1) (sin²θ_1 for an image). The angles
// they return are the same bits for both kinds; DistanceKind.Value gives
// a kind's distance from given values with Distances' bits (Distance is
// Geodesic's). The pruned searches below have bounds proven for each kind
// (bounds.go for the geodesic, chordal.go for the chordal one).
//
// # Workers
//
// An Engine owns persistent worker goroutines, created by New and stopped
// by Close. Prototypes are split into contiguous shards, one per worker;
// shard 0 is run by the calling goroutine itself. For d < 8
// (ownBlockMinDim) each shard's prototypes are stored side by side in one
// 64-byte aligned row-major D x (n·d) matrix (prototype k is d adjacent
// columns; stride n·d rounded up to a multiple of 8), so that a worker
// keeps re-reading the same memory and no padding is read: the row of
// every pixel holds that pixel's weights in all the shard's prototypes.
// From d = 8 on each prototype is its own contiguous D x d block (stride
// d, one after the other): a projection then streams each prototype's
// bytes once, in order, where the wide matrix's column blocks share cache
// lines that come from L3 twice once the prototypes outgrow L2 (on AVX2
// a sample against 10 prototypes of 784 x 12 took 82 µs instead of 95;
// see ownBlockMinDim). A Shared (serving) lays its prototypes out the
// same way (and from PivotMinP on at d < 8 in blocks of 8 prototypes side
// by side: see Shared). The float32 copy (float32 mode) stays one wide
// matrix per shard, where AtB32 runs fastest (a Shared's from PivotMinP on
// excepted). A call
// publishes its job by bumping an atomic sequence number.
// Workers spin on it for a bounded time (SpinTime, calling runtime.Gosched
// every 16th check, so that more workers than cores still make progress
// without taking the run queue's lock at every check) and then park on a
// channel; the caller waits for them the same way. Waking a parked
// goroutine costs 100-800 us on the build VM while a spinning one starts in
// well under a microsecond, so calls made back to back (a training loop)
// never pay the wake-up. There is no goroutine or channel per sample.
//
// Work is claimed in chunks of 8 prototypes (one svd.Batch call, one 8-lane
// AVX-512 group) with an atomic counter per shard. Each participant first
// takes its own shard's chunks in order, then any chunk of another shard
// that shard's owner has not started yet. On an idle machine every worker
// runs exactly its own shard; when a worker's core is busy with another
// process, the caller (or another worker) takes its chunks instead of
// waiting for the OS to schedule it, so the engine is never much slower
// than with one worker.
//
// After a few single-sample calls in which no worker took part (their cores
// busy elsewhere), the next ones run on the caller alone, then one probes
// again. SetSolo(true) forces that for every single-sample call: for a
// caller that updates the prototypes between small calls (training on
// single images), where splitting a call would move the updated
// prototypes' cache lines between cores at every step.
//
// Whether splitting a single-sample call pays is decided by measurement
// (adaptive splitting, engine.go's race): the sample calls (one per
// training step) are timed in windows of at least 32 calls and 16 ms, from
// call to call (the caller's work between them included), each window
// in one mode, split or solo (single-sample calls and Tasks on the caller
// alone); a training engine's first window is solo, after a hold of
// windows in one mode a window probes the other, and the faster per call
// takes the next hold, which doubles while the same mode keeps winning;
// splitting, which takes a second core, must be faster by 1/16 to be
// chosen, and a probe that is losing by far ends after a quarter window;
// a probe of splitting starts its window once a worker has taken part
// (the workers parked during the solo hold), and loses if none does
// within a quarter window. A worker's core busy with another process
// (descheduled in the middle of its share, slow to wake, or a spinning
// worker taking the core the caller's own work needs) thus sends the
// engine solo, and it comes back when splitting wins again. A Crew times
// its calls alone (a server waits between predictions). Solo reports the
// mode.
//
// Tasks hands the caller's own small jobs to the same workers, one per
// worker, right after a sample call, while the workers still spin; like
// chunks, a task a busy worker has not started is run by the caller.
// TasksFor places each task on the worker whose shard holds the
// prototype it works on (a training step factorises and updates its two
// winners as two tasks): that worker's projections keep the prototype in
// its core's cache, and an update run on the other core moved its cache
// lines there and back at the next projection (on the 2-core Zen 5 VM
// the two updates of a mnist-shaped step, placed by task number, took
// 10.5 and 11.9 us side by side against 6.4 us each alone).
//
// The batch forms (DistancesBatch, ImageDistancesBatch) split the samples
// instead: each worker takes a contiguous range of samples against all
// prototypes (one sample, or for images a block of 32, per chunk).
//
// A single image is one kernels.AB row per chunk (per prototype where
// each has its own block): y = x W, x against the chunk's columns of the
// shard matrix (one broadcast of x[r] per row, long FMA rows), then
// θ_k = arccos(‖y_k‖/‖x‖). Reading the prototypes (from
// L2) bounds it, so a sparse image reads only the rows of its nonzero
// pixels: the caller lists them once (kernels.Nonzeros) and every chunk
// runs kernels.SparseAB over the list instead of kernels.AB (prototypes in
// their own blocks: kernels.SparseABBlocks, which interleaves the few FMA
// chains of each block). Whether an
// image is sparse depends on x alone (every D/32-th pixel: at least
// 4 zeros among them, then at most 7/8 of all pixels nonzero), never on the
// workers or timing, and only while every prototype is known finite (set
// by SetPrototype with finite values; a view handed out by Prototype
// turns the sparse path off for good). A batch of images is a GEMM per
// block of 32 images against each block of prototypes (kernels.AB with 32 rows),
// so the prototypes are read once per block instead of once per image.
//
// Below d = 8 a chunk's projections are one kernels.AtB of the sample
// against the chunk's prototypes side by side in the shard matrix (d x 8d
// instead of eight d x d products: on AVX2 about a third faster at d =
// 5); from there on one AtB per prototype on its own block. An output of
// AtB is the same chain whatever the number of columns or the stride, so
// both layouts give the bits of one AtB per prototype (tested).
//
// # Searches: only the distances a decision needs
//
// Winners (a training step's nearest prototype of the sample's class and
// nearest of another class) and Nearest (a classifier's nearest prototype
// and, for its margin, the nearest of another class) give what a scan of
// the distances Distances computes gives, the same prototypes and, where
// they return distances, the same bits, but compute values (svd.Batch.Values)
// only for prototypes that can still win (search.go). Every distance is
// first bounded by an interval that provably contains what Distances would
// compute (bounds.go): tier 1 from ‖Pᵀ W‖_F (d² multiply-adds per
// prototype), tier 2 from svd.Gram's certified enclosures of the singular
// values (the Gram matrix, a tridiagonal eigensolver and Sturm counts; below
// gramMinDim, 11 on AVX-512, 8 on AVX2 and 5 otherwise, where they cost as
// much as the values, the values themselves: Nearest values the chunk of
// candidates with the least lower bounds first, on the caller, then only
// the rest still within the threshold their distances leave; a Winners
// search there of at most a chunk of prototypes computes neither traces
// nor tier-1 bounds and values every prototype in one call; a Winners
// search from gramMinDim computes no trace for a prototype of a group
// of two or more, which tier 2 encloses anyway: in training tier 1 rules
// nothing out, and the enclosure finds a NaN or Inf as the trace would),
// and
// only a prototype whose lower bound is not above the best upper bound of
// its group is taken further; what is left tied at tier 2 (a group of two
// or more candidates within the enclosures' width, about 1e-12 of the
// distance: Stats.Ties) is settled on the values, ties to the lowest index.
// A training step's winners come from Winners without their values: the
// trainer factorises them anyway, and svd's FactorizeValues gives their
// values with Batch.Values' bits from that factorisation. With at least
// PivotMinP prototypes, Nearest skips most projections too: a pivot index
// (pivots.go; LAESA, built at its first call and dropped when a prototype
// is set) bounds every distance from below by the triangle inequality of a
// metric on the subspaces (√(Σ m_j θ_j²) with m the suffix minima of λ, a
// symmetric gauge function of the angles; for the chordal distance
// √(Σ m_j sin²θ_j), a unitarily invariant norm of P Pᵀ − W Wᵀ) before any
// projection. The index keeps the first of its farthest-first pivots
// that minimise a query's estimated cost (pivots valued plus candidates
// left, estimated with prototypes as queries: pivotCount), and groups the
// other prototypes by their nearest pivot, so that a query far from a
// pivot rules out its whole group in one comparison. The pivots'
// projections and values are split between the workers like a search's
// chunks (they are read from the index's own copy, in cache from one
// query to the next); the candidates left are split between the workers
// by blocks (one kernel call each) and projected from a Shared of
// that many prototypes, which stores them in contiguous blocks (NewShared;
// one prototype a block from d = 8, eight below, sixteen at d = 1): a
// candidate then reads its block's rows in order, not a few bytes of each
// of D rows of a wide matrix on as many pages, and a model's prototypes of
// one class (stored together) are one kernel call a block. The chordal tier 1 is tight up to
// the spread of λ (Σ_j sin²θ_j = d − ‖Pᵀ W‖_F² exactly, no factor π²/4):
// on the training runs measured in docs/bounds.md it leaves values to
// compute for 4-22% of the prototypes, against 80-95% for the geodesic
// distance. Inputs
// the bounds do not cover (NaN or ±Inf, negative or huge relevances) take
// Distances and a scan, with its errors. Stats counts the work.
//
// # Float32 mode
//
// SetFloat32 (and NewShared32) computes the projections Pᵀ W_k and Wᵀ x
// from float32 copies of the prototypes and of the sample (rounded at each
// call, or given by the caller: WinnersRounded) with
// kernels.AtB32 and kernels.AtX32 (float32 FMAs, twice the lanes, half the
// bytes; blocks of 64 pixels summed in float32, the blocks in float64).
// Everything after the projections stays float64: the d x d products are
// handed over as float64, and the Jacobi values, the angles, the weighted
// distances, the winners' factorisation (svd; but a Float32 model's is
// svd.Pair.Factorize32, in float32 lanes on the asm paths at 3 <= d <=
// 32) and, in package model, the relevances are float64, and so is the prototype update but for
// UpdateExactRounded on the asm paths at d <= 32 (below). They are O(d³) per
// prototype against the projections' O(D d²), so float32 would save
// little there, and float64 keeps them from adding error to the ~4e-6
// (worst case, unit columns) of each float32 product entry. The
// prototypes are rounded to float32 in place (Sync), so the float64 copy
// holds what the projections read. A training step's exact update
// (UpdateExact, kernels.AB2F32; UpdateExactRounded from the sample's
// float32 rounding, kernels.AB2F32F32, a float32 model's) is computed in
// float64 from the float32 copy and written, rounded, to the float32 copy
// only (in place; UpdateExactRounded on the asm paths for d <= 32 in float32
// lanes instead, kernels.AB2S32: W + (W K + P B), the increment a float32
// FMA chain, W rounded once, 2.2 times as fast at D = 784, d = 12, its
// drift of orthonormality that of the float64 route), whose
// bytes are half and in cache after the projections; the float64 prototype is then stale (Stale)
// until Fresh copies the float32 values back, which a caller does before
// it reads or writes the prototype (the image distances and
// SetFloat32(false) do it themselves). The bits of the float64 routes are
// those of the update on the float64 prototype and Sync; AB2S32's are its
// own (the same on both asm paths; the generic path, which has no such
// kernel, takes the float64 route: a float32 model at such d trained there
// differs in its last bits). Near-zero angles: a cosine within
// d·4e-6 of its float64 value gives an angle within about √(2·d·4e-6)
// (1e-2 rad at d = 12, worst case) when θ is near 0 (cos θ ≈ 1 − θ²/2 is 1 in float32
// below about 3e-4 rad); the residual route (sin θ from P − W Wᵀ P,
// Knyazev–Argentati) is not taken: float32 is for classification, where
// distances are compared, not for measuring small angles. The pruned
// searches' tier-1 and tier-2 bounds enclose what Distances computes from
// the projection as stored, and hold in float32 mode with singular values
// above 1 taken into account (bounds.go, f32.go); the pivots are off
// there (their triangle inequality is for float64 products); a dense image
// is projected in float32, a sparse one by the float64 sparse path (on the
// same float32 values). Results are the same bits for any number of workers, batch
// or single, Engine or Shared, as in float64 mode (f32.go).
//
// # The float32 shadow of a float64 engine
//
// SetShadow32 (the trainer's, for a Float64 model with at least 12
// prototypes and d >= gramMinDim) keeps float32 copies of the float64
// prototypes for Winners: a search run on the caller alone projects in
// float32, widens its tier-1 and tier-2 bounds by the proven error of a
// float32 product against the float64 one (c32·‖P‖_F·‖W_k‖_F, Weyl:
// shadow.go), and projects in float64 only the candidates those bounds
// leave and the two winners. The winners, their projections and the
// distances a search returns are those of the float64 engine, bit for
// bit; Projection and ExactDistance project in float64 first where a
// search did not. Sync marks a prototype for the shadow; the next search
// that uses it rounds it. A split search (two or more workers) projects
// in float64 as before: split, the shadow's memory traffic cost more
// than it saved (shadow.go), and adaptive splitting weighs solo with the
// shadow against split without it.
//
// # Shared: one copy of the prototypes for many goroutines
//
// Shared (NewShared) is the read path of a trained model served from many
// goroutines at once: one read-only copy of the prototypes, packed as one
// shard holding them all (from d = 8 each prototype a contiguous block of
// its own, from PivotMinP prototypes on below d = 8 blocks of eight: see
// Searches above and Shared), and no
// goroutine of its own. A single-sample
// call (Distances, ImageDistances) runs on the caller's goroutine with a
// workspace from a sync.Pool (a one-shard Engine over the shared memory,
// never written through; each part allocated by the first call that needs
// it), so that concurrent callers scale with the cores they run on and
// share the prototypes: a busy server's cores are already taken by other
// requests, and splitting one sample would only add hand-offs. A batch
// call (DistancesBatch, ImageDistancesBatch) splits its samples: the
// caller and up to workers-1 goroutines started for the call claim one
// set, or one block of 32 images, at a time from an atomic counter, each
// with a pooled workspace, and the goroutines exit when the work is
// claimed. One that the OS starts late finds nothing left and returns, so
// the caller never waits on a wake-up to make progress; a batch under
// about 2·10⁶ flops per helper (splitWork, ~100 us on one core) runs on
// the caller alone. An idle Shared therefore costs no CPU, and needs no
// Close.
//
// Shared.Crew adds what a lone caller of a large single sample needs: an
// Engine whose shards are ranges of the Shared's own prototypes (no copy;
// in float32 mode, below PivotMinP prototypes, each shard keeps a
// contiguous copy of its float32 columns, see Crew) and
// whose workers-1 goroutines split one Distances or ImageDistances call by
// prototypes, like any Engine's (spin SpinTime, then park; Close stops
// them). It is for one goroutine at a time; a model keeps one and lets the
// caller that finds it free use it (package model).
//
// # Determinism
//
// Each prototype's result is computed by the same code with the same
// operands whoever runs it: the projection Pᵀ W_k (kernels.AtB), the
// singular values (svd.Batch, called on the same chunks in the single and
// batch forms), then arccos (kernels.AcosN over a chunk's angles, the bits
// of kernels.Acos lane by lane) and the weighted sum in a fixed order. For
// images, every output of kernels.AB is one FMA chain over the pixels in
// order starting from zero, whatever the number of rows and columns of the
// call and whichever lane computes it, so the single form (one row, a
// chunk's columns, shard widths that depend on the number of workers) and
// the batch form (32 rows, a whole shard) give the same bits. Skipping a
// pixel x_i = ±0 skips adding x_i·w = ±0 to such a chain: with a finite w
// that leaves a nonzero sum unchanged and can flip only the sign of a zero
// one, which the squares in ‖y_k‖ remove, so the sparse path gives the
// dense path's bits too (tested on every implementation).
// Results are therefore bit-identical for any number of workers, and the
// batch forms are bit-identical to the single forms called in a loop; a
// Shared (one shard, any number of batch goroutines) gives an Engine's
// bits. This
// relies on svd.Batch giving a matrix the same values whatever its
// neighbours in the batch (tested here), since chunk boundaries depend on
// the shard boundaries. When several calls fail, the error with the lowest
// prototype (or sample) index is returned, whoever found it.
//
// # Ownership and aliasing
//
// Prototype(k) returns a view into the engine's memory; callers may modify
// it between calls (a training step updates W⁺ and W⁻ in place) and the next
// call sees the change. It must not be modified during a call. Its Stride
// is d where each prototype has its own block (from d = 8), otherwise the
// shard matrix's or a Shared's block's (kernels.Stride(d) only when the shard holds one
// prototype), whose columns Cols..Stride-1 are other prototypes: write
// only its logical entries (linalg's At, Set, Row, CopyFrom and
// Orthonormalize do), and never assume Stride == kernels.Stride(d). A
// multi-prototype shard matrix's stride is never d or kernels.Stride(d),
// so a view into it is never linalg's Flat. Projection(k)
// returns a view of M_k = Pᵀ W_k from the last Distances call, valid until
// the next Distances call. Input matrices and output slices belong to the
// caller and are not retained; outputs must not alias inputs or the
// engine's memory. An Engine is not safe for concurrent use: one call at a
// time. A Shared is: its prototypes are copied by NewShared and never
// written afterwards, and every call has its own workspace; the caller's
// inputs and outputs follow the Engine's rules. The package's two tuning
// settings, SpinTime and CrewMinWork, are atomics read when an engine or
// a crew is made (SetSpinTime, SetCrewMinWork may be called at any time;
// engines made earlier keep the values they read).
//
// # Errors
//
// Bad user data is an error, never a panic: ErrShape for a wrong shape or
// slice length, ErrNotFinite for NaN or ±Inf in a sample, a prototype or
// λ, ErrZeroImage for an all-zero image, ErrClosed after Close, and svd's
// ErrNoConvergence (wrapped). Errors name the sample and prototype. On error
// the contents of the outputs are unspecified. The hot paths allocate
// nothing (except the error value on failure).
package engine
