package reference

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

const errShape = "reference: dimension mismatch"

// Sentinel errors, testable with errors.Is.
var (
	ErrNotFinite     = errors.New("reference: non-finite value")
	ErrNoWinner      = errors.New("reference: no prototype with the sample's label, or none with another label")
	ErrZeroDistance  = errors.New("reference: both winners at distance zero (cost undefined)")
	ErrRankDeficient = errors.New("reference: updated prototype is rank deficient")
	ErrSVD           = errors.New("reference: SVD did not converge")
	ErrRelevance     = errors.New("reference: relevances sum to zero after the floor")
)

// Model is a GRLGQ model. All fields are exported so that tests and benchmarks
// can build one by hand; Validate checks the invariants.
type Model struct {
	Prototypes  []*mat.Dense // D x d each, orthonormal columns
	Labels      []int        // class of each prototype, >= 0
	Lambda      []float64    // global relevances (len d), λ_k >= 0, sum 1
	LocalLambda [][]float64  // optional per-prototype relevances; nil = use Lambda
	Floor       float64      // relevance floor applied before renormalising (e.g. 1e-4); <= 0 means 0
	Relevance   bool         // false = GLGQ (λ never changes), true = learn λ
	Beta        float64      // 0 = identity activation φ(μ) = μ; > 0 = sigmoid φ(μ) = 1/(1+exp(-β μ))
	Chordal     bool         // false = Σ λ_k θ_k² (geodesic), true = Σ λ_k sin²θ_k (chordal)
}

// UniformLambda returns the starting relevances 1/d.
func UniformLambda(d int) []float64 {
	l := make([]float64, d)
	for k := range l {
		l[k] = 1 / float64(d)
	}
	return l
}

// Dims returns D and d of the prototypes (0, 0 for an empty model).
func (m *Model) Dims() (D, d int) {
	if len(m.Prototypes) == 0 {
		return 0, 0
	}
	return m.Prototypes[0].Dims()
}

// Validate checks shapes, finiteness, orthonormality of the prototypes (to
// tol in max-abs of WᵀW - I), labels >= 0 and the relevances.
func (m *Model) Validate(tol float64) error {
	if len(m.Prototypes) == 0 {
		return errors.New("reference: no prototypes")
	}
	if len(m.Labels) != len(m.Prototypes) {
		return fmt.Errorf("reference: %d labels for %d prototypes", len(m.Labels), len(m.Prototypes))
	}
	D, d := m.Dims()
	if d == 0 || D < d {
		return fmt.Errorf("reference: prototypes of %d x %d", D, d)
	}
	for j, W := range m.Prototypes {
		if r, c := W.Dims(); r != D || c != d {
			return fmt.Errorf("reference: prototype %d is %d x %d, want %d x %d", j, r, c, D, d)
		}
		if !finiteDense(W) {
			return fmt.Errorf("reference: prototype %d: %w", j, ErrNotFinite)
		}
		if e := orthoError(W); e > tol {
			return fmt.Errorf("reference: prototype %d: max |WᵀW - I| = %g > %g", j, e, tol)
		}
		if m.Labels[j] < 0 {
			return fmt.Errorf("reference: prototype %d has negative label %d", j, m.Labels[j])
		}
	}
	checkLambda := func(name string, l []float64) error {
		if len(l) != d {
			return fmt.Errorf("reference: %s has length %d, want %d", name, len(l), d)
		}
		s := 0.0
		for _, v := range l {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("reference: %s has entry %g", name, v)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			return fmt.Errorf("reference: %s sums to %g", name, s)
		}
		return nil
	}
	if m.LocalLambda == nil {
		return checkLambda("Lambda", m.Lambda)
	}
	if len(m.LocalLambda) != len(m.Prototypes) {
		return fmt.Errorf("reference: %d local relevances for %d prototypes", len(m.LocalLambda), len(m.Prototypes))
	}
	for j, l := range m.LocalLambda {
		if err := checkLambda(fmt.Sprintf("LocalLambda[%d]", j), l); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Prototypes = make([]*mat.Dense, len(m.Prototypes))
	for j, W := range m.Prototypes {
		c.Prototypes[j] = mat.DenseCopyOf(W)
	}
	c.Labels = append([]int(nil), m.Labels...)
	c.Lambda = append([]float64(nil), m.Lambda...)
	if m.LocalLambda != nil {
		c.LocalLambda = make([][]float64, len(m.LocalLambda))
		for j, l := range m.LocalLambda {
			c.LocalLambda[j] = append([]float64(nil), l...)
		}
	}
	return &c
}

// lambda returns the relevances prototype j uses.
func (m *Model) lambda(j int) []float64 {
	if m.LocalLambda != nil {
		return m.LocalLambda[j]
	}
	return m.Lambda
}

// Angles returns the principal angles (ascending) between span(P) and every
// prototype: θ = arccos(clamp(σ, 0, 1)) with σ the singular values of Pᵀ W.
// A non-finite P gives NaN angles.
func (m *Model) Angles(P *mat.Dense) [][]float64 {
	m.checkSample(P)
	_, d := m.Dims()
	var a angler
	out := make([][]float64, len(m.Prototypes))
	for j, W := range m.Prototypes {
		out[j] = make([]float64, d)
		a.anglesTo(out[j], P, W)
	}
	return out
}

// Distances returns d_λ(P, W_j) = Σ_k λ_k θ_k² (Chordal: Σ_k λ_k sin²θ_k)
// for every prototype j (with LocalLambda, λ is prototype j's own). A
// non-finite P gives NaN distances.
func (m *Model) Distances(P *mat.Dense) []float64 {
	m.checkSample(P)
	_, d := m.Dims()
	var a angler
	theta := make([]float64, d)
	out := make([]float64, len(m.Prototypes))
	for j, W := range m.Prototypes {
		a.anglesTo(theta, P, W)
		out[j] = m.weighted(m.lambda(j), theta)
	}
	return out
}

// ImageDistances returns θ_1² (Chordal: sin²θ_1) for every prototype, with
// θ_1 = arccos(clamp(‖Wᵀx‖/‖x‖, 0, 1)) the one principal angle between x and
// span(W). Relevances play no part. x = 0 or a non-finite x gives NaN.
func (m *Model) ImageDistances(x []float64) []float64 {
	D, d := m.Dims()
	if len(x) != D {
		panic(errShape)
	}
	xv := mat.NewVecDense(D, x) // aliases x, read only
	nx := mat.Norm(xv, 2)
	wx := mat.NewVecDense(d, nil)
	out := make([]float64, len(m.Prototypes))
	for j, W := range m.Prototypes {
		wx.MulVec(W.T(), xv)
		c := mat.Norm(wx, 2) / nx
		if nx == 0 || math.IsNaN(c) {
			out[j] = math.NaN()
			continue
		}
		t := math.Acos(clamp01(c))
		out[j] = m.term(t)
	}
	return out
}

// Winners returns the nearest prototype with label y (plus) and the nearest
// with another label (minus), with their distances. Ties go to the lowest
// index; NaN distances never win. A missing winner is reported as index -1
// with distance +Inf.
func (m *Model) Winners(P *mat.Dense, y int) (plus, minus int, dPlus, dMinus float64) {
	return m.winners(m.Distances(P), y)
}

func (m *Model) winners(dist []float64, y int) (plus, minus int, dPlus, dMinus float64) {
	plus, minus = -1, -1
	dPlus, dMinus = math.Inf(1), math.Inf(1)
	for j, dj := range dist {
		if m.Labels[j] == y {
			if dj < dPlus {
				plus, dPlus = j, dj
			}
		} else if dj < dMinus {
			minus, dMinus = j, dj
		}
	}
	return plus, minus, dPlus, dMinus
}

// PredictSet returns the label of the nearest prototype to span(P) (ties:
// lowest index) and the distances to all prototypes. If no distance is finite
// the label is -1.
func (m *Model) PredictSet(P *mat.Dense) (label int, dists []float64) {
	dists = m.Distances(P)
	return m.nearestLabel(dists), dists
}

// PredictImage returns the label of the prototype nearest to the image x by
// θ_1 (ties: lowest index) and the squared angles θ_1² to all prototypes. If
// no distance is finite (x = 0, NaN) the label is -1.
func (m *Model) PredictImage(x []float64) (label int, dists []float64) {
	dists = m.ImageDistances(x)
	return m.nearestLabel(dists), dists
}

func (m *Model) nearestLabel(dists []float64) int {
	best, label := math.Inf(1), -1
	for j, dj := range dists {
		if dj < best {
			best, label = dj, m.Labels[j]
		}
	}
	return label
}

func (m *Model) checkSample(P *mat.Dense) {
	D, d := m.Dims()
	if r, c := P.Dims(); r != D || c != d {
		panic(errShape)
	}
}

// angler holds the d x d workspace of one distance pass.
type angler struct {
	M   mat.Dense
	svd mat.SVD
	sv  []float64
}

// anglesTo writes the ascending principal angles between span(P) and span(W)
// into theta (len d). Non-finite input or an SVD failure gives NaN.
func (a *angler) anglesTo(theta []float64, P, W *mat.Dense) {
	a.M.Reset()
	a.M.Mul(P.T(), W)
	if !finiteDense(&a.M) || !a.svd.Factorize(&a.M, mat.SVDNone) {
		for k := range theta {
			theta[k] = math.NaN()
		}
		return
	}
	if len(a.sv) != len(theta) {
		a.sv = make([]float64, len(theta))
	}
	a.svd.Values(a.sv)
	for k, s := range a.sv { // descending σ → ascending θ
		theta[k] = math.Acos(clamp01(s))
	}
}

// weighted returns Σ_k λ_k term(θ_k).
func (m *Model) weighted(lambda, theta []float64) float64 {
	s := 0.0
	for k, t := range theta {
		s += lambda[k] * m.term(t)
	}
	return s
}

// term is one angle's part of the distance before its weight: θ²
// (geodesic) or sin²θ (chordal).
func (m *Model) term(t float64) float64 {
	if m.Chordal {
		s := math.Sin(t)
		return s * s
	}
	return t * t
}

func clamp01(c float64) float64 {
	return math.Max(0, math.Min(1, c))
}

func finiteDense(A *mat.Dense) bool {
	raw := A.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// orthoError returns max |WᵀW - I|.
func orthoError(W *mat.Dense) float64 {
	_, d := W.Dims()
	var g mat.Dense
	g.Mul(W.T(), W)
	e := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := g.At(i, j)
			if i == j {
				v--
			}
			e = math.Max(e, math.Abs(v))
		}
	}
	return e
}
