package svd

// Pair is the reusable workspace for the SVDs of two n x n matrices at once
// (the two winners of a training step). Its result for each matrix is the
// result of Small.Factorize for that matrix alone, bit for bit, on every
// implementation. It is not safe for concurrent use.
type Pair struct {
	n      int
	w      [2]*Small
	dual   *dualAsm     // AVX-512, 3 <= n <= 16: both factorisations in one run
	dual32 *dual32Asm   // AVX-512, 17 <= n <= 32: both of Factorize32 in one run
	pack32 *pack32Asm   // AVX-512, 3 <= n <= 16: both of Factorize32 in one vector
	f32x2  *small32AVX2 // AVX2, 3 <= n <= 32: both of Factorize32 in one run
}

// NewPair returns the workspace for pairs of n x n matrices,
// 1 <= n <= MaxSmall. Factorize and FactorizeValues on it allocate
// nothing.
func NewPair(n int) *Pair {
	if n < 1 || n > MaxSmall {
		panic(PanicShape)
	}
	p := &Pair{n: n, w: [2]*Small{NewSmall(n), NewSmall(n)}}
	if useAVX512 {
		p.dual = newDualAsm(n)
		if p.pack32 = newPack32Asm(n); p.pack32 == nil {
			p.dual32 = newDual32Asm(n)
		}
	}
	// FactorizeValues runs Batch.Values beside the factorisation on
	// AVX-512 (always) and on AVX2 (where its run is not certified): the
	// workspaces for that are made here, not at the first such call, so
	// that a trainer's steps allocate nothing from its first step on,
	// whichever step first needs the values.
	if useAVX512Possible {
		p.f32x2 = newSmall32AVX2(n, 2)
	}
	if useAVX512 || useAVX2 {
		for _, w := range p.w {
			w.batch = NewBatch(n)
		}
	}
	return p
}

// N returns the order of the matrices this workspace handles.
func (p *Pair) N() int { return p.n }

// Small returns the workspace of matrix i (0 or 1) of the pair: Factorize
// on it gives what Pair.Factorize gives for that matrix. The two may be
// used at once by two goroutines, but not while Pair.Factorize runs.
func (p *Pair) Small(i int) *Small { return p.w[i] }

// Factorize computes A_i = U_i diag(s_i) V_iᵀ of the two n x n matrices
// a[0] and a[1] (row stride lda) for i = 0, 1, as
//
//	for i := range a {
//		p.Small(i).Factorize(u[i], ldu, s[i], v[i], ldv, a[i], lda)
//	}
//
// computes them, to the bit, and with the same contract: see
// Small.Factorize. On CPUs with AVX2 and FMA (without AVX-512) both run in
// one pass of the 4-lane Jacobi kernel, each matrix in two lanes. The two
// matrices share their strides; no output may alias an input or another
// output. Allocation-free (except for the error value on failure).
//
// On failure it returns a *BatchError whose Index is the first matrix that
// failed (0 or 1) and whose Err is the error Small.Factorize returns for
// it; if matrix 0 fails, the outputs of matrix 1 are unspecified.
func (p *Pair) Factorize(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) error {
	n := p.n
	for i := range a {
		checkFactors(n, u[i], ldu, s[i], v[i], ldv, a[i], lda)
	}
	if !useAVX512 && useAVX2 && p.w[0].avx2 != nil {
		return p.factorizeAVX2(u, ldu, s, v, [2][]float64{}, ldv, a, lda)
	}
	return p.factorizeEach(u, ldu, s, v, ldv, a, lda)
}

// factorizeEach is Factorize of both matrices with Small.Factorize's bits:
// in one run of the dual kernel where it applies (AVX-512, 3 <= n <= 16:
// factorizeDual), else one by one.
func (p *Pair) factorizeEach(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) error {
	if p.dual != nil && p.factorizeDual(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	for i, w := range p.w {
		if err := w.Factorize(u[i], ldu, s[i], v[i], ldv, a[i], lda); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}

// FactorizeValues is Factorize that also writes into bv[i][:n] the values
// Batch.Values computes for a[i], as Small(i).FactorizeValues does: on CPUs
// with AVX2 and FMA (without AVX-512) from the same one kernel run where
// that run is certified to be Batch.Values' (see Small.FactorizeValues);
// on AVX-512 both matrices' values from the batch kernel's small-group
// forms (the lane kernel, two at once up to 16 x 16, or the split form;
// see valuesSplit), with its bits.
// Errors as Factorize's; bv of a matrix that failed, and of matrix 1 when
// matrix 0 failed, are unspecified.
func (p *Pair) FactorizeValues(u [2][]float64, ldu int, s, v, bv [2][]float64, ldv int, a [2][]float64, lda int) error {
	n := p.n
	for i := range a {
		checkFactors(n, u[i], ldu, s[i], v[i], ldv, a[i], lda)
		if len(bv[i]) < n {
			panic(PanicShape)
		}
	}
	if !useAVX512 && useAVX2 && p.w[0].avx2 != nil {
		return p.factorizeAVX2(u, ldu, s, v, bv, ldv, a, lda)
	}
	if useAVX512 && useSplit && n >= 2 && p.w[0].batch != nil {
		return p.factorizeValuesAVX512(u, ldu, s, v, bv, ldv, a, lda)
	}
	for i, w := range p.w {
		if err := w.FactorizeValues(u[i], ldu, s[i], v[i], ldv, bv[i], a[i], lda); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}
