package reference

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// orthoMGS2 orthonormalises the columns of A by modified Gram-Schmidt run
// twice, written with plain loops so that tests do not lean on the code under
// test.
func orthoMGS2(A *mat.Dense) *mat.Dense {
	D, d := A.Dims()
	Q := mat.DenseCopyOf(A)
	for pass := 0; pass < 2; pass++ {
		for k := 0; k < d; k++ {
			for j := 0; j < k; j++ {
				dot := 0.0
				for i := 0; i < D; i++ {
					dot += Q.At(i, j) * Q.At(i, k)
				}
				for i := 0; i < D; i++ {
					Q.Set(i, k, Q.At(i, k)-dot*Q.At(i, j))
				}
			}
			n := 0.0
			for i := 0; i < D; i++ {
				n += Q.At(i, k) * Q.At(i, k)
			}
			n = math.Sqrt(n)
			for i := 0; i < D; i++ {
				Q.Set(i, k, Q.At(i, k)/n)
			}
		}
	}
	return Q
}

func randGauss(rng *rand.Rand, D, d int) *mat.Dense {
	A := mat.NewDense(D, d, nil)
	for i := 0; i < D; i++ {
		for k := 0; k < d; k++ {
			A.Set(i, k, rng.NormFloat64())
		}
	}
	return A
}

func randOrtho(rng *rand.Rand, D, d int) *mat.Dense {
	return orthoMGS2(randGauss(rng, D, d))
}

// near returns an orthonormal basis of span(C + s*noise).
func near(rng *rand.Rand, C *mat.Dense, s float64) *mat.Dense {
	D, d := C.Dims()
	A := randGauss(rng, D, d)
	A.Scale(s, A)
	A.Add(A, C)
	return orthoMGS2(A)
}

func randSimplex(rng *rand.Rand, d int) []float64 {
	l := make([]float64, d)
	s := 0.0
	for k := range l {
		l[k] = 0.2 + rng.Float64()
		s += l[k]
	}
	for k := range l {
		l[k] /= s
	}
	return l
}

// randModel has p prototypes, labels j % classes, random relevances.
func randModel(rng *rand.Rand, D, d, p, classes int, local bool) *Model {
	m := &Model{Lambda: randSimplex(rng, d), Floor: 1e-4, Relevance: true}
	for j := 0; j < p; j++ {
		m.Prototypes = append(m.Prototypes, randOrtho(rng, D, d))
		m.Labels = append(m.Labels, j%classes)
		if local {
			m.LocalLambda = append(m.LocalLambda, randSimplex(rng, d))
		}
	}
	return m
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func maxOrthoError(t *testing.T, m *Model) float64 {
	t.Helper()
	e := 0.0
	for _, W := range m.Prototypes {
		e = math.Max(e, orthoError(W))
	}
	return e
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func sameModel(a, b *Model) bool {
	if len(a.Prototypes) != len(b.Prototypes) || !sameBits(a.Lambda, b.Lambda) {
		return false
	}
	for j := range a.Prototypes {
		if !sameBits(a.Prototypes[j].RawMatrix().Data, b.Prototypes[j].RawMatrix().Data) {
			return false
		}
		if a.LocalLambda != nil && !sameBits(a.LocalLambda[j], b.LocalLambda[j]) {
			return false
		}
	}
	return true
}
