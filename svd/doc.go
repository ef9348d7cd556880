// Package svd computes singular value decompositions of the small and tall
// matrices of the GRLGQ engine: the singular values of d x d products
// M = Pᵀ W (the cosines of the principal angles between two subspaces), for
// one matrix or for many at once (one sample against all prototypes), the
// full d x d factorisation M = Q_P diag(cos θ) Q_Wᵀ for the two winners of a
// training step, and the thin SVD of a D x m image set.
//
// # Types
//
//   - Small: n x n, n <= MaxSmall. Values (singular values only) and
//     Factorize (U, s, V).
//   - Batch: singular values of k n x n matrices; on CPUs with AVX-512 eight
//     matrices are processed at once, one per 64-bit lane of a ZMM register
//     (a group of one to four on the kernel's split form, or up to 32 x 32
//     one or two at a time with their pairs in lanes: the same bits), on
//     CPUs with AVX2 and FMA but not AVX-512 four, one per lane of a YMM
//     register.
//   - Pair: Factorize of two n x n matrices at once (the two winners),
//     each with the bits Small.Factorize gives for it alone; its two Small
//     workspaces are available for use on two goroutines.
//     FactorizeValues (Small and Pair) also gives the values Batch.Values
//     computes for the same matrix, with Batch.Values' bits (on AVX2 from
//     the factorisation's own kernel run where that run is certified to be
//     Batch.Values'; on AVX-512 from one more run for both; see
//     factorvalues.go).
//   - Factorize32 (Small and Pair): Factorize to float32's accuracy, for
//     a float32 model's winners, whose products are float32 sums: on
//     AVX-512 and AVX2 for 3 <= n <= 32 the matrix rounded to float32 and
//     the iteration in float32 lanes (16 a vector on AVX-512, 8 on AVX2;
//     Factorize32Native), both of a Pair in one run; elsewhere it is
//     Factorize (below).
//   - Gram: enclosures lo <= σ_j² <= hi of the squared singular values of
//     many n x n matrices, certified, at a fraction of the Jacobi
//     iteration's cost for larger n (see below).
//   - Tall: thin SVD of a rows x cols matrix, rows >= cols, cols <= MaxTall.
//
// Each type is a reusable workspace created once for its shape (New*); its
// methods allocate nothing (except an error value on failure). A workspace
// is not safe for concurrent use: give each goroutine its own.
//
// # Layout, ownership and aliasing
//
// All matrices are row-major with an explicit row stride (ld >= cols), as in
// package kernels: element (r, c) of a is a[r*lda+c]. Outputs are written
// into caller-owned slices; only the logical elements are written (padding
// columns of a strided output are left untouched). Inputs are never
// modified. Outputs must not alias the input or each other. Singular values
// are in descending order, and the columns of U and V are permuted to
// match. Signs of singular vector pairs are arbitrary (u_i, v_i may both be
// negated).
//
// Wrong shapes (sizes out of range, strides smaller than the row length,
// slices too short) are programmer errors: the methods panic with
// PanicShape. Bad data is an error: NaN or Inf entries give ErrNotFinite
// (checked before any work), and an iteration that has not converged within
// MaxSweeps sweeps gives ErrNoConvergence (never seen on finite input; it
// guarantees termination). Batch and Pair wrap them in a *BatchError
// carrying the index of the offending matrix.
//
// # Algorithms and guarantees
//
// One-sided (Hestenes) Jacobi: the columns of A are rotated in pairs, in a
// round-robin (tournament) order whose n/2 pairs per round are disjoint,
// until every pair (x, y) satisfies |x·y| <= tol ‖x‖ ‖y‖ with
// tol = max(n, 8) 2^-52. The singular values are then the column norms, U
// the normalised columns and V the product of the rotations. Before the
// iteration the matrix is scaled by an exact power of two so that its
// largest entry is in [0.5, 1): inputs anywhere between the smallest normal
// and the largest float64 neither overflow nor underflow, and the scaling is
// undone exactly. Columns whose norm falls below 2^-60 ‖A‖_F are negligible:
// they are not rotated (a column that is parallel to another to within
// rounding would otherwise turn into noise again and again), their norm is
// reported as their singular value, and Factorize completes their columns
// of U by Gram-Schmidt against unit vectors, so U is orthonormal also for
// rank-deficient input.
//
// Measured against gonum's mat.SVD on random and hard inputs (rank-
// deficient, clustered and tiny singular values, graded, zero rows and
// columns, scales 1e-300 to 1e300): singular values agree to 1e-13 of the
// largest, ‖UᵀU - I‖ and ‖VᵀV - I‖ are below 1e-13, and
// ‖A - U Σ Vᵀ‖_F <= 1e-13 ‖A‖_F. Small singular values are accurate
// relative to the largest one (not relative to themselves).
//
// # Accuracy
//
// The contract of the values, on every implementation (pure Go, AVX2,
// AVX-512) and for every n <= MaxSmall: each computed value of an n x n
// matrix A (Small.Values, Small.Factorize, Batch.Values, Pair) is within
//
//	4 n u σ_1,   u = 2^-53 (the unit roundoff),
//
// of the exact singular value of A as stored, σ_1 the largest. Why this
// form and not a constant: a value is the norm of a converged column, the
// square root of a sum of n squares, and that sum alone may be off by about
// (n/2 + 1) u relative (two FMA chains of n/2 terms), so any bound that
// holds for every n grows at least linearly with n. Before that, each
// column goes through S (n - 1) rotations (S, the sweeps, is 6 to 12 here),
// each of which changes its norm by a relative error of about 2u; the
// rounding is to nearest and c, s are within an ulp without a bias (the
// AVX-512 batch kernel refines VRSQRT14PD and VRCP14PD estimates by Newton
// steps, whose error in c, below 2^-54, always has the same sign but is a
// tenth of an ulp), so the errors add like a random walk, about
// sqrt(S n) 2u, below n u for n >= 8. Columns left with |x·y| <= tol ‖x‖ ‖y‖
// change the values by far less (the last rotating sweep leaves the cosines
// quadratically small). The bound is relative to σ_1, not to each value:
// small values (angles near 90°) are accurate only relative to the largest.
//
// TestBatchPrincipalAngles checks it against exact values (one-sided
// Jacobi in double-double arithmetic, about 106 bits) on products M = Pᵀ W
// of orthonormal bases, the matrices of principal angles (random angles,
// tiny angles: values within 1e-7 of 1, small angles: within 5e-7 of 1,
// angles within 1e-7 of a right angle, exactly orthogonal and identical
// subspaces, repeated, clustered 1e-9 apart, rank-deficient), for every n
// from 1 to 64: the largest error is 0.44 of the bound on the pure-Go path,
// 0.40 on AVX2, and the AVX-512 kernels' arithmetic stays within the same
// half: modelled in Go over every n, and run on an emulated AVX-512 CPU
// (Bochs, Skylake-X model) for n = 1, 2, 3, 5, 8, 12, 16, 21, 25, 32, 33,
// 35, 63, 64, all nine kinds of case, where Batch.Values erred by at most
// 0.33 of the bound (0.14 to 0.16 on the small angles of n = 21, 33, 35,
// 63, 64, the cases that failed against gonum). gonum's mat.SVD
// errs by up to 1.15 times the bound on the same matrices (4.6 n u at
// n = 21, small angles, values within 5e-7 of 1): an earlier form of the
// test compared with gonum at a fixed 1e-14, and the AVX-512 batch kernel,
// whose values differ from the AVX2 kernel's in the last bits (its
// rotation parameters come from the estimates above), failed it wherever
// its own error (below 0.3 of the bound) had the sign opposite to gonum's.
//
// Alternatives measured for Batch (pure-Go Jacobi, products of random
// orthonormal bases of 100+d rows, 20-30 matrices per case; sweeps include
// the final sweep without rotation):
//
//   - QR first (Householder, no pivoting), Jacobi on Rᵀ: d = 12 random
//     6.8 sweeps instead of 7.15, d = 25 7.7 instead of 8.45; with column
//     pivoting 6.2 and 7.05. With most angles small or clustered (the
//     trained case: a sample near its prototypes) neither saves a sweep
//     (d = 25, angles below 1e-3: 7.3-7.4 sweeps in all three forms), while
//     the QR costs about a quarter of a sweep. Not used.
//   - Stopping a matrix after the first sweep whose largest rotated cosine
//     is below δ, instead of after a sweep with no rotation: at δ = 1e-9,
//     with values clustered near 1 (angles below 1e-7), the error grows to
//     3e-13 (d = 12) and 4e-11 (d = 64) of the largest (the cosine test is
//     relative to the column norms, not to the gaps between the values);
//     at δ <= 1e-10 no error is added, but all that is saved is the final
//     sweep without rotation in a part of the matrices (0.2-1.2 sweeps,
//     and that sweep costs about a third of one that rotates, dots and
//     tests only): a few per cent, for a margin of one decade. Not used.
//   - Blocks of two columns (four columns per step: their 4 x 4 Gram from
//     exact dots, three rounds of rotations on it, the product applied in
//     one pass), which halves the loads and stores of the rotations: same
//     sweeps (d = 12: 6.2-6.5 instead of 5.9-7.1; d = 25: 7.3-8.3 instead
//     of 7.5-8.5), error up to 7e-15 at d = 25 but 2.4e-14 at d = 64; about
//     15% fewer cycles a pair estimated on the AVX2 kernel, not built.
//   - Values from the Gram matrix MᵀM (symmetric eigenvalues, square
//     roots): values above a tenth of the largest are within 1e-15 of
//     gonum's (7.5e-15 for angles below 1e-7), but values near zero (large
//     angles, rank-deficient M) are off by up to 1.5e-8 of the largest:
//     the eigenvalue error eps·σ_max² becomes eps·σ_max²/σ in σ. Fails the
//     1e-14 bar as values; used instead, as Gram, for certified
//     enclosures, which is all the engine's searches need of most
//     prototypes (next).
//
// Gram (gram.go) encloses the exact squared values of a matrix as stored:
// the Gram matrix Ĝ = fl(AᵀA) (within γ_n ‖A‖_F² of AᵀA), its Householder
// tridiagonal T̂ (an orthogonal similarity of Ĝ + E, ‖E‖_F <= 8 n² u ‖Ĝ‖_F:
// the one constant taken from the literature, Higham's Lemmas 19.2-19.3,
// generously), estimates of T̂'s eigenvalues by the implicit QL iteration
// in the root-free form of Pal, Walker and Kahan (LAPACK's dsterf: on the
// squares of the off-diagonal entries, no square root in a step), and
// Sturm counts at each estimate ± δ (δ = 8 n u ‖T̂‖_F), each of which is
// the exact count of a tridiagonal within a few u of T̂ (Kahan 1966;
// Demmel, Dhillon and Ren 1995): the interval [μ − δ, μ + δ) holds the
// eigenvalues whose indices the two counts bracket, whatever the accuracy
// of μ. The proof is in Enclose's comment. Tested on every path against
// double-double values on the principal-angle and hard matrices of every
// n: every exact square inside its enclosure, the estimates within 2.5 n² u
// σ_1² of them (the bounds allow about 9 n² u), 825 of 843 matrices
// certified (the rest, and matrices beyond 2^±1000, get [0, +Inf)).
// On AVX2 four matrices run in the lanes of YMM registers
// (../asm/jacobi/gram4.go and gramload.go: the loads, the Gram matrix, the
// reduction two rows at a time, the Sturm counts; ql.go: the QL iteration
// with each lane's own splits and chases under blend masks, two groups'
// chains interleaved). AVX-512 CPUs run their 8-lane forms (gram4.go's
// generators at 8 lanes: the same operations lane by lane, the selections
// by K registers, so the same bits per matrix, TestGramLanes; the Sturm
// counts eight shifts at a time, the largest magnitudes by
// absMax4AVX512 in gramload.go) on up to four groups of 8 at once, which
// share one buffer for the loaded matrices, the Gram matrix and the
// reduction (dead once a group is reduced: it stays in cache from group to
// group), and whose QL iterations run in one call (ql512.go: ql16AVX512 and
// ql32AVX512, two or four groups' chains interleaved in ZMM registers):
// on Zen 5, where interleaving more 4-lane chains had not paid on Zen 3,
// 16 lanes a step took the one-worker mnist epoch from 2.50-2.65 to
// 2.40-2.44 floors (eighth session of 27 November 2026). Per
// matrix, batches of 8 products of random 400 x n bases against
// Batch.Values on the Zen 3 machine (loaded): the same time at n = 5 and 8,
// 0.77 at n = 10, about 1.0 at n = 12, 0.65 at n = 16, 0.45 at n = 25
// (before the root-free QL and the kernels' loads, which took another
// 15-20% off n = 12 and 25: BenchmarkGramEnclose n = 25 from 10.2 to 7.1-8.0
// µs). The QL iteration is still 36-44% of it at n = 25: one dependency
// chain per lane (the tqli form had a square root and a division per step,
// about 64 cycles; the root-free step has one division on it, 1/p beside
// 1/r), against the n/2 independent pairs of a Jacobi round, and each
// iteration's scan for the split point is as long as its chase. Three and
// four groups interleaved (and one division a step) were tried and were
// no faster: two groups already fill the core with the step's
// instructions, nine of its thirty a blend (docs/bounds.md, sixth session
// of 27 November 2026). EncloseEach takes the matrices where they lie
// (the engine's candidates' projections), the same bits as Enclose on
// copies. (Go's MOVQ from a general register into an X register is
// the legacy SSE encoding; mixed with AVX code it made the QL kernel 17
// times slower on Zen 3: VMOVQ.)
//   - V from k sweeps of two-sided Jacobi on G = MᵀM (the same round-robin
//     order and rotation formula, V accumulated), then one-sided Jacobi on
//     B = M V for full accuracy (values within 8e-15 of gonum's at d = 25):
//     each sweep on G saves exactly one sweep on B (d = 12 random: 7.1
//     sweeps alone, k on G and then 7.1 - k on B for k = 1..5; likewise
//     tiny, small, near 90°, clustered and rank-deficient angles, d = 12
//     and 25), because the one-sided iteration is two-sided Jacobi on MᵀM
//     done implicitly; a
//     sweep on G writes two rows and two columns of G and two rows of V
//     per pair (three times the stores of a one-sided pair) and M V adds
//     n³. Slower by construction; not built.
//   - A larger negligible threshold for the values (columns below
//     2^-52 ‖A‖_F left unrotated instead of below 2^-60): products with
//     half their angles exactly 90° (rank-deficient) converge in 7.2
//     sweeps instead of 11.3 at d = 12 (9.3 against 14.8 at d = 25, 11.7
//     against 18.6 at d = 64), the other cases in the same sweeps, with
//     the same errors (the principal-angle test passes on AVX2 with it);
//     on the AVX2 kernel rank-deficient groups took 7.2 instead of 9.2 µs
//     per matrix at d = 12 (noisy VM). It changes the values of
//     rank-deficient inputs at the 1e-16 level, hence training bits; how
//     often training meets such inputs is not measured. Not adopted.
//   - The AVX2 kernel's c = 1/sqrt(1 + t²) from a VRSQRTPS estimate, one
//     cubic and one Newton step (exactly 1 where t = 0) instead of VSQRTPD
//     and VDIVPD, so that the divider serves only t: about 4% less CPU
//     time at d = 12 in one measurement, 7% more by the fastest of 18
//     alternated runs in another, no difference at d = 25; it changes the
//     bits of every model. Not adopted. Computing the parameters of every
//     pair (no branch on the lanes that rotate) was 4-6% slower: the
//     divider work of the pairs that do not rotate costs more than the
//     branch. Adding four independent multiplies or one more store per row
//     to the rotations cost 13% and 7% (fastest of 24 runs at d = 25): the
//     rotations are not the whole cost, and no single unit bounds the
//     kernel.
//   - Two groups of 4 matrices in one AVX2 kernel call (each pass of a
//     round does a pair for group A, then for group B: twice the
//     independent chains, each matrix with its bits alone, tested): the
//     CPU time of 8-matrix batches, two binaries alternated four times, was
//     the same at d = 12 (1.24-1.40 s against 1.28-1.46 s) and 20% more at
//     d = 25 (1.50-1.57 s against 1.18-1.44 s: the two groups' 40 KB no
//     longer fit in L1). Not adopted.
//
// How far these kernels and an epoch can go at all (lower bounds from the
// arithmetic and the stores of the measured sweeps): docs/bounds.md.
//
// Tall: Householder QR of A (computed as the LQ factorisation of Aᵀ,
// whose rows are contiguous, blocked by four reflectors: each panel is
// applied to the trailing rows in compact WY form, one pass for four dot
// products and one for the update), the Jacobi SVD of the cols x cols
// factor R, and U = Q [U_R; 0] with Q = I - Y T Yᵀ in compact WY form:
// T from YᵀY (kernels.AtB), U = [U_R; 0] + Y (-T Y_topᵀ U_R) by one
// kernels.AB over the rows. The reflectors are exactly orthogonal whatever
// the rank, so U stays orthonormal for rank-deficient A.
//
// # Implementations
//
// Every algorithm has a pure-Go version, always compiled, whose products
// feeding a sum are written float64(a*b) so that no FMA is fused: the
// purego build gives the same bits on every architecture. On amd64 without
// the purego tag, AVX-512 kernels generated by ../asm/jacobi (go generate)
// are selected at start-up from CPU features (the decision of package
// internal/cpu, the same as package kernels'); the pure-Go and assembly paths
// compute the same algorithm but not the same bits (the assembly uses FMA,
// orders the pairs of a sweep differently within the same round-robin
// rounds, and tests |x·y| > tol ‖x‖ ‖y‖ squared). Without AVX-512 (or with
// GRLGQ_KERNELS=avx2), CPUs with AVX2 and FMA run Batch and Small on an
// AVX2 kernel:
//
//   - Batch: eight matrices at once, one per 64-bit lane; squared column
//     norms recomputed at each sweep and updated after each rotation; the
//     values sorted by a sorting network across the lanes. One to four
//     matrices (a batch's last group, the winners' values of
//     Pair.FactorizeValues) run on the kernel's split form
//     (jacobi8sAVX512: two lanes a matrix, its even and its odd rows, each
//     lane's operations those of the 8-lane kernel in the same order, so
//     the same bits: TestSplitAVX512Bits over n = 2..64 and the hard,
//     scaled, -0 and subnormal cases). It halves the dots' and the
//     rotations' vector instructions but not the latency of a pair (the
//     dot's chains of n/4 FMAs, the parameters' chain): on a Zen 5 machine
//     the kernel's share of a yaleb epoch (two 25 x 25 matrices a step)
//     fell by only about 10% (0.30 to 0.27 s of the profile), the
//     one-worker epoch by about 4%. One or two matrices of up to
//     32 x 32 (n >= 8 for one, n >= 16 for two) take the lane kernel
//     instead (jacobi1bW1AVX512, jacobi1bW2AVX512: the Small kernel's
//     layout, a round's column pairs in the lanes of one or two ZMM
//     registers, moved to the next round's pairs by the circle's
//     permutation, with the batch kernel's norms, dot chains and
//     parameter sequence per lane, so the same bits; a pair whose left
//     column has the larger index swaps α and β for d and negates t,
//     which rounds as the batch kernel's (x, y) does, d = 0 included):
//     per matrix on the Zen 5 machine 4.2 µs at n = 12 and 20.5 µs at
//     n = 25 against 7.6 and 60 µs on the split kernel (and 1.1 against
//     1.0 µs at n = 5, where it is not used). Two matrices of 10 x 10 to
//     16 x 16 run at once (jacobi1bDualAVX512, one vector each): 5.8
//     against 7.6 µs at n = 12. Accumulating the next round's γ in the
//     rotation pass instead of a pass of its own took only 4-5% off and
//     was not kept: a round waits for its parameters (about 80 cycles of
//     estimates and Newton steps), and the next round's parameters for
//     the round's rows.
//   - Batch (AVX2): four matrices at once, one per lane of a YMM register,
//     loaded (transposed, scaled by their powers of two) by Go code; each
//     round of a sweep in three passes over its disjoint pairs: the dot
//     products, the rotation parameters (VSQRTPD, VDIVPD: the n/2
//     independent chains overlap), the rotations (rows in blocks of four);
//     a lane that needs no rotation gets t = 0, hence c = 1, s = 0 exactly.
//     The values are the square roots of the squared norms of the last
//     sweep (exact sums, no rotation in it). On the 2-core Zen 3 build
//     machine (AVX2, no AVX-512) it takes about 2.9 µs per 12 x 12 matrix
//     and 23 µs per 25 x 25 (gonum: 11 and 37 µs): the rotations are bound
//     by 256-bit stores (one a cycle, two per row of a pair), the dot
//     products and parameters by their per-pair latency. Five to eight
//     matrices run as two groups in one kernel (jacobi4x2AVX2: each pass
//     does a pair of the first group, then of the second, so that twice
//     as many parameter chains are in flight; each lane's bits as alone,
//     TestBatchPositionIndependent): at n = 5, where a round has two
//     pairs, 8 matrices in 0.31-0.45 µs each against 0.38-0.55 µs as two
//     runs (BenchmarkGramEnclose's jacobi rows, alternating binaries); at
//     n = 12 no difference, and in the eth80 epoch only 10% less time in
//     the kernel (its lanes converge after different numbers of sweeps,
//     and the group of eight runs to the slowest).
//   - Small (2 <= n <= 64, also Tall's R up to 64 columns) on the split
//     form of the same kernel (jacobi4sAVX2): the matrix in lanes 0 and 1,
//     its even rows in one lane and its odd rows in the other (the lanes
//     2 and 3 are zero and never rotate), the rows of V stored under each
//     column and rotated with it but left out of the dot products and
//     norms. Each lane's operations are those of the one-lane layout in
//     the same order: the norm's two chains (even rows, odd rows) are the
//     two lanes, the dot product's four chains (rows 4j+u) the lanes of
//     two accumulators, its last rows mod 4 added into the first lane
//     alone; so a matrix has the bits the kernel gives it in one lane
//     (TestSplitAVX2Bits, every sweep count, n = 2..64), in half the
//     vector instructions of its dots and rotations. A group's time for
//     one matrix: Factorize of 12 x 12 about 1.5x faster than gonum's
//     SVDThin with U and V on the Zen 3 machine before the split, and
//     BenchmarkSVD's d = 25 pair 220 against 135 µs since; Values slower
//     than gonum's (use Batch).
//   - Pair (AVX2): the two matrices in lanes (0, 1) and (2, 3) of the same
//     split kernel run, which goes on until both have converged. A lane
//     that does not rotate a pair gets c = 1, s = 0, which keeps every
//     value but not the sign of a zero (-0 - s y is +0 for y < 0): the
//     kernel's exact lanes (all four here, none for Batch and Small) take a
//     pair that rotates in one matrix but not the other through a blend
//     (VBLENDVPD) that keeps the other as it is, so each matrix gets the
//     bits of Small.Factorize alone (tested for n = 1..64 with -0 and
//     subnormal entries, which without the blend differ). On the Zen 3
//     machine (load about 4, medians of 8) a pair of 12 x 12 matrices took
//     1.3x the time of one Factorize (37.5 against 29 µs) in the one-lane
//     layout, and the winners' factorisation of a one-worker MNIST epoch
//     11% of the profile instead of 20%; 5% since the split.
//   - Pair (AVX-512, 3 <= n <= 16): both matrices in one run of
//     jacobi1DualAVX512, matrix i in vector i of each half row, each
//     moving by the one-vector circle and with its own negligible
//     threshold; a round rotates or only permutes each matrix's vector by
//     that matrix's own lanes (four loops per part, one per combination),
//     so each gets the bits of Small.Factorize alone (TestPairFactorize;
//     rotating both whenever either rotates fails it, at the signs of
//     zeros). Pair.Factorize on Zen 5: 2.35 → 1.57 µs at n = 5, 4.9 → 3.6
//     µs at n = 8, 9.4 → 7.5 µs at n = 12, 15.9 → 14.2 µs at n = 16. On
//     other implementations Pair calls Small.Factorize twice.
//   - Factorize32 (AVX-512, 3 <= n <= 32): the kernels above generated in
//     float32 lanes (jacobi1S32AVX512, jacobi1Dual32AVX512: the same
//     rounds, pairs, masks and loops, 16 lanes a vector, VPERMT2PS), on
//     the matrix scaled by a power of two and rounded to float32, to the
//     tolerance max(n, 8)·2⁻²³ and with negligible columns below 2⁻²⁴ ‖A‖_F
//     (the matrix's own float32 rounding); the converged columns are
//     widened and finished in float64 as Factorize's (a column the
//     kernel left alone as negligible is completed, never normalised:
//     finish's threshold is 2⁻¹⁰ above the kernel's). A Pair's two
//     matrices take one vector each for 17 <= n <= 32 (jacobi1Dual32AVX512),
//     so at n = 25 both run in the vectors one float64 matrix needs, and
//     share one vector up to n = 16 (jacobi1Pack32AVX512: lanes 0-7 and
//     8-15, each half its own circle, negligible threshold and
//     rotate-or-permute decision): BenchmarkSVD's pair on Zen 5
//     (ours-pair → ours-pair32, medians of three, quiet) d = 5 1.43 →
//     1.11 µs, d = 12 6.7 → 4.3 µs, d = 25 58.6 → 31.4 µs (the float32
//     iteration also converges a sweep earlier: 7-8 sweeps against 8-9,
//     and n = 25 fills one vector of 16 lanes with 13 pairs). Accuracy
//     (TestFactorize32, every n up to 34 and the hard and angle inputs of
//     the other tests): values within 4 max(n, 8) 2⁻²⁴ ‖A‖₂ of
//     Factorize's, U and V orthonormal and A reconstructed within 4 max(n,
//     8) 2⁻²⁴ (the largest seen 0.84 of that);
//     each of a Pair's matrices has the bits of Small.Factorize32 alone
//     (TestPairFactorize32). Elsewhere (generic, other n) Factorize32 is
//     Factorize, bit for bit.
//   - Factorize32 on AVX2 (3 <= n <= 32; ../asm/jacobi/single2.go): the
//     same layout in the 8 float32 lanes of one YMM vector a half row up
//     to 16 x 16 (jacobi1S32AVX2), two up to 32 x 32 (jacobi1S32W2AVX2),
//     the same circle: AVX2 has no two-source permute, so a new vector is
//     a VPERMPS of one or two vectors by a fixed table (a lane up or down)
//     and blends (VBLENDPS; the last pair's lane by VBLENDVPS), the lanes
//     past the pairs taking copies that a lane mask keeps from rotating.
//     A Pair's two matrices run in one call, a round at a time (each
//     one's A rows, then both parameter chains, which overlap, then each
//     one's V rows), each rotating or only permuting by its own lanes;
//     up to 8 x 8 both in one vector (jacobi1Pack32AVX2: lanes 0-3 and
//     4-7, each half its own circle, the half of a matrix that does not
//     rotate put back from the loaded row). Each matrix has the bits of
//     Small.Factorize32 alone (TestPairFactorize32; one decision for both
//     fails it at the signs of zeros), and the kernels converge on every
//     test matrix (TestFactorize32Converges: a lane mask that lets the
//     copies past the pairs rotate never converges, which Factorize32's
//     fallback to Factorize would otherwise hide). BenchmarkSVD's pair
//     with GRLGQ_KERNELS=avx2 on Zen 5 (ours-pair → ours-pair32, medians
//     of three, quiet): d = 5 1.51 → 1.16 µs, d = 12 9.6 → 6.1 µs, d = 25
//     92 → 57 µs.
//   - Small (3 <= n <= 32; larger n use the pure-Go path) and Tall's R: one
//     matrix, the n/2 disjoint pairs of a round in the lanes of one or two
//     ZMM registers (left columns, right columns), the next round's pairing
//     by VPERMT2PD (circle method). V is rotated in the same kernel.
//   - Tall: the transposes in and out by gathers, the blocked LQ's
//     four-row dot products and updates.
package svd
