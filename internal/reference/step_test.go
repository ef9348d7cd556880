package reference

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// cost is weight·φ(μ) of sample (P, y) with the winners held at plus, minus
// (the finite-difference steps are too small to change them; checked).
func cost(t *testing.T, m *Model, P *mat.Dense, y, plus, minus int, weight float64) float64 {
	t.Helper()
	dist := m.Distances(P)
	p, q, _, _ := m.winners(dist, y)
	if p != plus || q != minus {
		t.Fatalf("winners changed under perturbation: (%d, %d) -> (%d, %d)", plus, minus, p, q)
	}
	mu := (dist[plus] - dist[minus]) / (dist[plus] + dist[minus])
	phi, _ := m.activation(mu)
	return weight * phi
}

func frobDot(A, B *mat.Dense) float64 {
	r, c := A.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += A.At(i, j) * B.At(i, j)
		}
	}
	return s
}

// The gradient of one step against central differences of weight·φ(μ): the
// prototype moved along a horizontal tangent direction Δ = (I - V Vᵀ) Z (to
// first order it stays orthonormal, and moves its span), relevances moved
// along coordinate axes (the distance is linear in λ).
func TestGradientFiniteDifferences(t *testing.T) {
	for _, tc := range []struct {
		beta, weight   float64
		local, chordal bool
	}{{0, 1, false, false}, {2.5, 0.7, false, false}, {0, 1.3, true, false}, {1, 1, true, false},
		{0, 1, false, true}, {2.5, 0.7, false, true}, {0, 1.3, true, true}} {
		t.Run(fmt.Sprintf("beta=%g,w=%g,local=%v,chordal=%v", tc.beta, tc.weight, tc.local, tc.chordal), func(t *testing.T) {
			rng := newRand(10)
			D, d := 12, 3
			m := randModel(rng, D, d, 6, 3, tc.local)
			m.Beta = tc.beta
			m.Chordal = tc.chordal
			P := near(rng, m.Prototypes[1], 0.8)
			y := 2
			g, err := m.gradient(P, y, tc.weight)
			if err != nil {
				t.Fatal(err)
			}
			plus, minus := g.info.Plus, g.info.Minus
			if c := cost(t, m, P, y, plus, minus, tc.weight); math.Abs(c-tc.weight*g.info.Cost) > 1e-15 {
				t.Fatalf("cost %g, info %g", c, g.info.Cost)
			}

			const h = 1e-6
			for _, side := range []struct {
				j  int
				V  *mat.Dense
				dV *mat.Dense
			}{{plus, g.plus.V, g.dVPlus}, {minus, g.minus.V, g.dVMinus}} {
				// V spans the same space as the prototype.
				if e := orthoError(side.V); e > 1e-13 {
					t.Fatalf("V not orthonormal: %g", e)
				}
				for trial := 0; trial < 3; trial++ {
					Z := randGauss(rng, D, d)
					var VtZ, VVtZ, Delta mat.Dense
					VtZ.Mul(side.V.T(), Z)
					VVtZ.Mul(side.V, &VtZ)
					Delta.Sub(Z, &VVtZ)
					eval := func(s float64) float64 {
						mm := m.Clone()
						var A mat.Dense
						A.Scale(s, &Delta)
						A.Add(side.V, &A)
						mm.Prototypes[side.j] = orthoMGS2(&A)
						return cost(t, mm, P, y, plus, minus, tc.weight)
					}
					fd := (eval(h) - eval(-h)) / (2 * h)
					an := frobDot(side.dV, &Delta)
					if math.Abs(fd-an) > 1e-6*math.Max(1, math.Abs(an)) {
						t.Errorf("prototype %d trial %d: analytic %.10g, finite difference %.10g", side.j, trial, an, fd)
					}
				}
				// No component along rotations inside the span: ⟨∂E/∂V, V S⟩ = 0
				// for skew S (G cos Θ is diagonal).
				S := randGauss(rng, d, d)
				var skew, VS mat.Dense
				skew.Sub(S, S.T())
				VS.Mul(side.V, &skew)
				if v := frobDot(side.dV, &VS); math.Abs(v) > 1e-13 {
					t.Errorf("gradient has a rotational part %g", v)
				}
			}

			// Relevances.
			for k := 0; k < d; k++ {
				if !tc.local {
					eval := func(s float64) float64 {
						mm := m.Clone()
						mm.Lambda[k] += s
						return cost(t, mm, P, y, plus, minus, tc.weight)
					}
					fd := (eval(h) - eval(-h)) / (2 * h)
					if an := g.dLambdaGlobal[k]; math.Abs(fd-an) > 1e-6*math.Max(1, math.Abs(an)) {
						t.Errorf("∂E/∂λ_%d: analytic %.10g, finite difference %.10g", k, an, fd)
					}
					continue
				}
				for _, side := range []struct {
					j    int
					grad []float64
				}{{plus, g.dLambdaPlus}, {minus, g.dLambdaMinus}} {
					eval := func(s float64) float64 {
						mm := m.Clone()
						mm.LocalLambda[side.j][k] += s
						return cost(t, mm, P, y, plus, minus, tc.weight)
					}
					fd := (eval(h) - eval(-h)) / (2 * h)
					if an := side.grad[k]; math.Abs(fd-an) > 1e-6*math.Max(1, math.Abs(an)) {
						t.Errorf("∂E/∂λ[%d]_%d: analytic %.10g, finite difference %.10g", side.j, k, an, fd)
					}
				}
			}
		})
	}
}

// A prototype equal to the sample (θ = 0 exactly or to rounding) must give a
// finite update.
func TestThetaZeroStep(t *testing.T) {
	rng := newRand(11)
	D, d := 9, 3
	m := randModel(rng, D, d, 3, 3, false)
	P := mat.DenseCopyOf(m.Prototypes[0])
	for _, local := range []bool{false, true} {
		mm := m.Clone()
		if local {
			mm.LocalLambda = [][]float64{UniformLambda(d), UniformLambda(d), UniformLambda(d)}
		}
		info, err := mm.Step(P, m.Labels[0], 0.1, 1e-3, 1)
		if err != nil {
			t.Fatalf("local=%v: %v", local, err)
		}
		if info.Plus != 0 || info.DPlus > 1e-14 || info.Mu > -1+1e-12 {
			t.Errorf("local=%v: info %+v", local, info)
		}
		if err := mm.Validate(1e-12); err != nil {
			t.Errorf("local=%v: %v", local, err)
		}
		// The plus prototype stays on the sample's span.
		if dist := mm.Distances(P); dist[0] > 1e-14 {
			t.Errorf("local=%v: plus prototype left the sample: %g", local, dist[0])
		}
	}
}

// One small step decreases the sample's cost, moves only the winners, and
// keeps every prototype orthonormal; many steps too.
func TestStepDecreasesCostAndStaysOrthonormal(t *testing.T) {
	rng := newRand(12)
	D, d := 16, 4
	m := randModel(rng, D, d, 6, 3, false)
	for it := 0; it < 200; it++ {
		y := rng.IntN(3)
		P := near(rng, m.Prototypes[rng.IntN(6)], 0.5)
		before := append([]*mat.Dense(nil), m.Prototypes...)
		info, err := m.Step(P, y, 0.01, 1e-3, 1)
		if err != nil {
			t.Fatal(err)
		}
		after := m.Distances(P)
		muAfter := (after[info.Plus] - after[info.Minus]) / (after[info.Plus] + after[info.Minus])
		if !(muAfter < info.Mu) {
			t.Errorf("step %d: μ %g -> %g", it, info.Mu, muAfter)
		}
		for j := range m.Prototypes {
			if j != info.Plus && j != info.Minus && m.Prototypes[j] != before[j] {
				t.Errorf("step %d: prototype %d changed without winning", it, j)
			}
		}
		if e := maxOrthoError(t, m); e > 1e-12 {
			t.Fatalf("step %d: ‖WᵀW - I‖ = %g", it, e)
		}
	}
	if err := m.Validate(1e-12); err != nil {
		t.Error(err)
	}
}

// Step = the formula of the package documentation, recomputed here from the
// gradient: span(W⁺_new) = span(V⁺ - η ∂E/∂V⁺), and the relevance update.
func TestStepAppliesGradient(t *testing.T) {
	rng := newRand(13)
	D, d := 10, 3
	m := randModel(rng, D, d, 4, 2, false)
	P := near(rng, m.Prototypes[0], 0.7)
	eta, gamma := 0.05, 0.01
	g, err := m.gradient(P, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := m.Clone()
	if _, err := m.Step(P, 1, eta, gamma, 1); err != nil {
		t.Fatal(err)
	}
	for _, side := range []struct {
		j     int
		V, dV *mat.Dense
	}{{g.info.Plus, g.plus.V, g.dVPlus}, {g.info.Minus, g.minus.V, g.dVMinus}} {
		var A mat.Dense
		A.Scale(-eta, side.dV)
		A.Add(side.V, &A)
		want := orthoMGS2(&A)
		// Same span: ‖want wantᵀ W - W‖ small, i.e. all angles zero.
		check := &Model{Prototypes: []*mat.Dense{want}, Labels: []int{0}, Lambda: UniformLambda(d)}
		for _, th := range check.Angles(m.Prototypes[side.j])[0] {
			if th > 1e-7 { // arccos resolution near 0
				t.Errorf("prototype %d: span differs by angle %g", side.j, th)
			}
		}
	}
	sum := 0.0
	for k := range m.Lambda {
		want := math.Max(before.Lambda[k]-gamma*g.dLambdaGlobal[k], m.Floor)
		sum += want
	}
	for k := range m.Lambda {
		want := math.Max(before.Lambda[k]-gamma*g.dLambdaGlobal[k], m.Floor) / sum
		if math.Abs(m.Lambda[k]-want) > 1e-16 {
			t.Errorf("λ_%d = %g, want %g", k, m.Lambda[k], want)
		}
	}
}

func TestRelevanceFloorAndFixed(t *testing.T) {
	l, err := updateRelevance([]float64{0.5, 0.3, 0.2}, []float64{0, 0, 100}, 1, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5 / 0.801, 0.3 / 0.801, 1e-3 / 0.801}
	for k := range l {
		if math.Abs(l[k]-want[k]) > 1e-16 {
			t.Errorf("λ = %v, want %v", l, want)
		}
	}
	if _, err := updateRelevance([]float64{0.5, 0.5}, []float64{10, 10}, 1, 0); !errors.Is(err, ErrRelevance) {
		t.Errorf("all clamped to zero: %v", err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := updateRelevance([]float64{0.5, 0.5}, []float64{bad, 0}, 1, 0); !errors.Is(err, ErrNotFinite) {
			t.Errorf("gradient %g: %v", bad, err)
		}
	}

	// GLGQ: λ is never touched.
	rng := newRand(14)
	m := randModel(rng, 8, 2, 2, 2, false)
	m.Relevance = false
	lambda := append([]float64(nil), m.Lambda...)
	for it := 0; it < 20; it++ {
		if _, err := m.Step(near(rng, m.Prototypes[0], 1), it%2, 0.1, 0.1, 1); err != nil {
			t.Fatal(err)
		}
	}
	if !sameBits(lambda, m.Lambda) {
		t.Errorf("GLGQ changed λ: %v -> %v", lambda, m.Lambda)
	}
}

func TestNonFiniteIsAnErrorAndLeavesModel(t *testing.T) {
	rng := newRand(15)
	D, d := 8, 2
	m := randModel(rng, D, d, 4, 2, false)
	good := near(rng, m.Prototypes[0], 0.3)
	bad := mat.DenseCopyOf(good)
	bad.Set(3, 1, math.NaN())
	inf := mat.DenseCopyOf(good)
	inf.Set(0, 0, math.Inf(-1))
	before := m.Clone()
	for _, tc := range []struct {
		name          string
		P             *mat.Dense
		eta, gamma, w float64
		want          error
	}{
		{"NaN sample", bad, 0.1, 0.01, 1, ErrNotFinite},
		{"Inf sample", inf, 0.1, 0.01, 1, ErrNotFinite},
		{"NaN eta", good, math.NaN(), 0.01, 1, ErrNotFinite},
		{"Inf gamma", good, 0.1, math.Inf(1), 1, ErrNotFinite},
		{"NaN weight", good, 0.1, 0.01, math.NaN(), ErrNotFinite},
		{"huge eta", good, 1e308, 0.01, 1e308, ErrNotFinite},
		{"no winner", good, 0.1, 0.01, 1, ErrNoWinner},
	} {
		y := 0
		if tc.want == ErrNoWinner {
			y = 9
		}
		if _, err := m.Step(tc.P, y, tc.eta, tc.gamma, tc.w); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if !sameModel(m, before) {
			t.Fatalf("%s: model changed by a failed step", tc.name)
		}
	}
	// Epoch wraps the error with the position.
	_, err := m.Epoch([]*mat.Dense{good, bad}, []int{0, 1}, []int{1, 0}, 0.1, 0.01, nil)
	if !errors.Is(err, ErrNotFinite) {
		t.Errorf("epoch: %v", err)
	}
	if !sameModel(m, before) {
		t.Error("epoch failing at its first sample changed the model")
	}
}

func TestZeroDistance(t *testing.T) {
	rng := newRand(16)
	W := randOrtho(rng, 6, 2)
	m := &Model{Prototypes: []*mat.Dense{W, mat.DenseCopyOf(W)}, Labels: []int{0, 1}, Lambda: UniformLambda(2)}
	if _, err := m.Step(W, 0, 0.1, 0, 1); !errors.Is(err, ErrZeroDistance) {
		t.Errorf("err = %v", err)
	}
}

// A tiny separable problem: three classes of subspaces scattered around three
// centres. The mean cost falls over epochs and the training set ends up
// classified correctly, for GLGQ, GRLGQ and local relevances.
func TestEpochsLearnSeparableProblem(t *testing.T) {
	for _, tc := range []struct {
		name             string
		relevance, local bool
		beta             float64
	}{{"GLGQ", false, false, 0}, {"GRLGQ", true, false, 0}, {"local", true, true, 0}, {"sigmoid", true, false, 4}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := newRand(20)
			D, d, classes, per := 20, 3, 3, 8
			var samples []*mat.Dense
			var labels []int
			centres := make([]*mat.Dense, classes)
			for c := range centres {
				centres[c] = randOrtho(rng, D, d)
			}
			for i := 0; i < classes*per; i++ {
				c := i % classes
				samples = append(samples, near(rng, centres[c], 0.25))
				labels = append(labels, c)
			}
			weights := make([]float64, len(samples))
			for i := range weights {
				weights[i] = 0.5 + rng.Float64()
			}
			// Prototypes start at random subspaces (far from the centres).
			m := &Model{Lambda: UniformLambda(d), Floor: 1e-4, Relevance: tc.relevance, Beta: tc.beta}
			for j := 0; j < 2*classes; j++ {
				m.Prototypes = append(m.Prototypes, randOrtho(rng, D, d))
				m.Labels = append(m.Labels, j%classes)
				if tc.local {
					m.LocalLambda = append(m.LocalLambda, UniformLambda(d))
				}
			}
			var costs []float64
			for epoch := 0; epoch < 40; epoch++ {
				c, err := m.Epoch(samples, labels, rng.Perm(len(samples)), 0.1, 1e-3, weights)
				if err != nil {
					t.Fatal(err)
				}
				costs = append(costs, c)
			}
			if !(costs[len(costs)-1] < costs[0]-0.1) {
				t.Errorf("mean cost did not fall: %v", costs)
			}
			if err := m.Validate(1e-12); err != nil {
				t.Error(err)
			}
			for i, P := range samples {
				if label, _ := m.PredictSet(P); label != labels[i] {
					t.Errorf("sample %d: predicted %d, want %d", i, label, labels[i])
				}
			}
			t.Logf("cost %.4f -> %.4f, λ %.4v", costs[0], costs[len(costs)-1], m.Lambda)
		})
	}
}

// Seeded runs are bit-for-bit repeatable.
func TestDeterministic(t *testing.T) {
	run := func() *Model {
		rng := newRand(30)
		m := randModel(rng, 12, 3, 4, 2, false)
		var samples []*mat.Dense
		var labels []int
		for i := 0; i < 10; i++ {
			samples = append(samples, near(rng, m.Prototypes[i%4], 0.5))
			labels = append(labels, i%2)
		}
		for e := 0; e < 3; e++ {
			if _, err := m.Epoch(samples, labels, rng.Perm(10), 0.05, 1e-3, nil); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	if !sameModel(run(), run()) {
		t.Error("two seeded runs differ")
	}
}

func BenchmarkStep(b *testing.B) {
	for _, sz := range []struct{ D, d, p int }{{400, 7, 38}, {784, 12, 10}} {
		b.Run(fmt.Sprintf("D=%d,d=%d,p=%d", sz.D, sz.d, sz.p), func(b *testing.B) {
			rng := newRand(40)
			m := randModel(rng, sz.D, sz.d, sz.p, sz.p, false)
			P := near(rng, m.Prototypes[0], 0.5)
			for b.Loop() {
				if _, err := m.Step(P, 0, 1e-4, 1e-7, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDistances(b *testing.B) {
	rng := newRand(41)
	m := randModel(rng, 400, 7, 38, 38, false)
	P := near(rng, m.Prototypes[0], 0.5)
	for b.Loop() {
		m.Distances(P)
	}
}
