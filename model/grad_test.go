package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

func TestThetaOverSin(t *testing.T) {
	if v := thetaOverSin(0); v != 1 {
		t.Errorf("θ/sin θ at 0 = %v, want 1", v)
	}
	for _, th := range []float64{1e-300, 1e-20, 1e-8, 1e-5, 5e-4, 0.999e-3, 1e-3, 1.001e-3, 0.1, 1, math.Pi / 2} {
		got := thetaOverSin(th)
		// Reference: a long series in extended care near 0, direct elsewhere.
		var want float64
		if th < 0.01 {
			t2 := th * th
			want = 1 + t2/6 + 7*t2*t2/360 + 31*t2*t2*t2/15120
		} else {
			want = th / math.Sin(th)
		}
		if math.IsNaN(got) || math.Abs(got-want) > 5e-16*want {
			t.Errorf("θ/sin θ at %g = %.17g, want %.17g", th, got, want)
		}
	}
	// Continuity across the switch.
	a, b := thetaOverSin(math.Nextafter(seriesBelow, 0)), thetaOverSin(seriesBelow)
	if math.Abs(a-b) > 4e-16 {
		t.Errorf("jump of %g at the series switch", a-b)
	}
	if angle(1+1e-15) != 0 || angle(-1e-17) != math.Pi/2 || !math.IsNaN(angle(math.NaN())) {
		t.Error("angle does not clamp")
	}
}

// gradCase sets up a trainer on a small random model with non-uniform
// relevances and returns it with a sample.
func gradCase(t *testing.T, cfg opts, seed uint64) (*trainer, *linalg.Dense, int) {
	t.Helper()
	const dim, d = 9, 3
	xs, ys := synth(t, seed, dim, d, 3, 4, 0.6)
	cfg.Init = InitRandom
	cfg.PrototypesPerClass = 2
	cfg.Seed = seed
	cfg.Workers = 1
	m, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	for off := 0; off < len(m.lambda); off += d {
		var s float64
		for k := off; k < off+d; k++ {
			m.lambda[k] = 0.2 + rng.Float64()
			s += m.lambda[k]
		}
		for k := off; k < off+d; k++ {
			m.lambda[k] /= s
		}
	}
	tr, err := newTrainer(m, legacyTrain(cfg.TrainConfig))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	if cfg.ClassWeights {
		tr.weights = []float64{0.7, 1.9, 1.1}
	}
	return tr, xs[0].Basis, ys[0]
}

// costGonum is the cost weight·φ(μ) of sample p for fixed winners, computed
// from scratch with gonum from the given prototype bases (orthonormalised
// here) and relevances, with the distance kind.
func costGonum(cfg *TrainConfig, kind Distance, weight float64, p *mat.Dense, wPlus, wMinus *mat.Dense, lPlus, lMinus []float64) float64 {
	dist := func(w *mat.Dense, l []float64) float64 {
		th := anglesGonum(p, orthGonum(w))
		var s float64
		for k, v := range th {
			if kind == Chordal {
				sn := math.Sin(v)
				s += l[k] * sn * sn
				continue
			}
			s += l[k] * v * v
		}
		return s
	}
	dp, dm := dist(wPlus, lPlus), dist(wMinus, lMinus)
	phi, _ := cfg.activation((dp - dm) / (dp + dm))
	return weight * phi
}

// tangent returns a random direction Δ with Wᵀ Δ = 0, ‖Δ‖_F = 1.
func tangent(w *mat.Dense, rng *rand.Rand) *mat.Dense {
	r, c := w.Dims()
	z := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			z.Set(i, j, rng.NormFloat64())
		}
	}
	var wz, proj mat.Dense
	wz.Mul(w.T(), z)
	proj.Mul(w, &wz)
	z.Sub(z, &proj)
	z.Scale(1/mat.Norm(z, 2), z)
	return z
}

func TestGradientFiniteDifferences(t *testing.T) {
	for _, kind := range []Distance{Geodesic, Chordal} {
		for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal, RelevanceNone} {
			for _, act := range []Activation{Identity, Sigmoid} {
				for _, cw := range []bool{false, true} {
					cfg := opts{Config: Config{Relevance: rel, Distance: kind}, TrainConfig: TrainConfig{Activation: act, Beta: 3, ClassWeights: cw}}
					name := fmt.Sprintf("%v/rel=%d/act=%d/weights=%v", kind, rel, act, cw)
					t.Run(name, func(t *testing.T) {
						for seed := uint64(1); seed <= 3; seed++ {
							checkGradient(t, cfg, seed)
						}
					})
				}
			}
		}
	}
}

func checkGradient(t *testing.T, cfg opts, seed uint64) {
	tr, p, y := gradCase(t, cfg, seed)
	r, err := tr.gradient(p, y)
	if err != nil {
		t.Fatal(err)
	}
	d := tr.base.d
	P := toMat(p)
	wp, wm := toMat(tr.protos[r.Plus]), toMat(tr.protos[r.Minus])
	lp := append([]float64(nil), tr.relevanceOf(r.Plus)...)
	lm := append([]float64(nil), tr.relevanceOf(r.Minus)...)
	weight := tr.weights[y]
	c := tr.cfg
	e0 := costGonum(&c, tr.base.cfg.Distance, weight, P, wp, wm, lp, lm)
	if math.Abs(e0-r.Cost) > 1e-12 {
		t.Errorf("cost %v, gonum %v", r.Cost, e0)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	const h = 1e-5
	for side, w := range []*mat.Dense{wp, wm} {
		// Euclidean gradient w.r.t. W: ∂E/∂V Q_Wᵀ = U diag(g) Q_Wᵀ.
		u := toMat(p)
		var U, gw mat.Dense
		qp := mat.NewDense(d, d, append([]float64(nil), tr.qp[side]...))
		qw := mat.NewDense(d, d, append([]float64(nil), tr.qw[side]...))
		U.Mul(u, qp)
		for j := 0; j < d; j++ {
			col := mat.Col(nil, j, &U)
			for i := range col {
				col[i] *= tr.gv[side][j]
			}
			U.SetCol(j, col)
		}
		gw.Mul(&U, qw.T())
		checkTangentDerivatives(t, fmt.Sprintf("seed %d side %d", seed, side), &gw, w, h, rng, func(ws *mat.Dense) float64 {
			if side == 0 {
				return costGonum(&c, tr.base.cfg.Distance, weight, P, ws, wm, lp, lm)
			}
			return costGonum(&c, tr.base.cfg.Distance, weight, P, wp, ws, lp, lm)
		})
	}
	if tr.base.cfg.Relevance == RelevanceNone {
		return
	}
	// Relevance gradient: perturb one λ_k at a time (no renormalisation).
	for k := 0; k < d; k++ {
		at := func(s float64, which int) float64 {
			a := append([]float64(nil), lp...)
			b := append([]float64(nil), lm...)
			if tr.base.cfg.Relevance == RelevanceGlobal || which == 0 {
				a[k] += s
			}
			if tr.base.cfg.Relevance == RelevanceGlobal || which == 1 {
				b[k] += s
			}
			return costGonum(&c, tr.base.cfg.Distance, weight, P, wp, wm, a, b)
		}
		if tr.base.cfg.Relevance == RelevanceGlobal {
			fd := (at(h, 0) - at(-h, 0)) / (2 * h)
			if math.Abs(fd-tr.gl[k]) > 1e-7*math.Max(1, math.Abs(fd)) {
				t.Errorf("seed %d: ∂E/∂λ_%d = %.10g, finite difference %.10g", seed, k, tr.gl[k], fd)
			}
			continue
		}
		for which := 0; which < 2; which++ {
			fd := (at(h, which) - at(-h, which)) / (2 * h)
			if g := tr.gl[which*d+k]; math.Abs(fd-g) > 1e-7*math.Max(1, math.Abs(fd)) {
				t.Errorf("seed %d: ∂E/∂λ%s_%d = %.10g, finite difference %.10g", seed, []string{"⁺", "⁻"}[which], k, g, fd)
			}
		}
	}
}

func elemMul(a, b *mat.Dense) *mat.Dense {
	var c mat.Dense
	c.MulElem(a, b)
	return &c
}

// TestStepMovesAlongGradient checks that a small step lowers the sample's
// cost by about η‖∇E‖² (the step is the gradient step on the Grassmannian).
func TestStepMovesAlongGradient(t *testing.T) {
	cfg := opts{Config: Config{Relevance: RelevanceNone}}
	tr, p, y := gradCase(t, cfg, 4)
	before, err := tr.gradient(p, y)
	if err != nil {
		t.Fatal(err)
	}
	const eta = 1e-4
	if _, err := tr.stepSample(Set(&subspace.Subspace{Basis: p}), y, eta, 0); err != nil {
		t.Fatal(err)
	}
	after, err := tr.gradient(p, y)
	if err != nil {
		t.Fatal(err)
	}
	if !(after.Cost < before.Cost) {
		t.Errorf("cost %v -> %v after a small step", before.Cost, after.Cost)
	}
}

func TestThetaZeroAndRightAngle(t *testing.T) {
	const dim, d = 12, 3
	xs, ys := synth(t, 3, dim, d, 2, 3, 0.3)
	// InitNoise < 0: the prototypes are exactly training sets, so the first
	// step of such a set sees θ = 0 (0/0 in θ/sin θ).
	cfg := opts{TrainConfig: TrainConfig{InitNoise: -1, Workers: 1, Seed: 1}}
	m, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	var sample *subspace.Subspace
	var label int
	for i, x := range xs {
		if sameSpan(x.Basis, m.protos[0]) < 1e-12 {
			sample, label = x, ys[i]
		}
	}
	if sample == nil {
		t.Fatal("no training set equals prototype 0")
	}
	tr, err := newTrainer(m, legacyTrain(cfg.TrainConfig))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	r, err := tr.gradient(sample.Basis, label)
	if err != nil {
		t.Fatal(err)
	}
	if r.Plus != 0 || r.DPlus > 1e-14 || r.Mu > -1+1e-12 {
		t.Fatalf("winner %d at distance %g, μ %v", r.Plus, r.DPlus, r.Mu)
	}
	for j := 0; j < d; j++ {
		if !finite(tr.gv[0][j]) || !finite(tr.gv[1][j]) {
			t.Fatalf("gradient not finite at θ = 0: %v %v", tr.gv[0], tr.gv[1])
		}
	}
	old0 := tr.Model().Prototype(0)
	if _, err := tr.stepSample(Set(sample), label, 0.1, 1e-3); err != nil {
		t.Fatal(err)
	}
	after := tr.Model()
	if a := sameSpan(old0, after.protos[0]); a > 1e-7 {
		t.Errorf("W⁺ at θ = 0 moved by %g", a)
	}
	for k := range after.protos {
		if err := after.protos[k].Validate(); err != nil {
			t.Fatal(err)
		}
	}

	// θ = π/2: a sample with two directions z, z' orthogonal to every
	// prototype (so two principal angles of exactly π/2).
	var all mat.Dense
	blocks := make([]mat.Matrix, 0)
	for _, w := range after.protos {
		blocks = append(blocks, toMat(w))
	}
	all.Augment(blocks[0], blocks[1])
	for _, b := range blocks[2:] {
		var tmp mat.Dense
		tmp.Augment(&all, b)
		all = tmp
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pm := mat.NewDense(dim, d, nil)
	for j := 0; j < d; j++ {
		z := mat.NewVecDense(dim, nil)
		for i := 0; i < dim; i++ {
			z.SetVec(i, rng.NormFloat64())
		}
		if j < 2 {
			var q mat.QR
			q.Factorize(&all)
			var qm mat.Dense
			q.QTo(&qm)
			_, nc := all.Dims()
			basis := qm.Slice(0, dim, 0, nc)
			var c, pz mat.VecDense
			c.MulVec(basis.T(), z)
			pz.MulVec(basis, &c)
			z.SubVec(z, &pz)
		}
		pm.SetCol(j, z.RawVector().Data)
	}
	p := fromMat(orthGonum(pm))
	tr2, err := newTrainer(after, legacyTrain(cfg.TrainConfig))
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	r2, err := tr2.gradient(p, label)
	if err != nil {
		t.Fatal(err)
	}
	if th := tr2.th[0][d-1]; math.Abs(th-math.Pi/2) > 1e-7 {
		t.Fatalf("largest angle %v, want π/2", th)
	}
	for side := 0; side < 2; side++ {
		for j := 0; j < d; j++ {
			if !finite(tr2.gv[side][j]) {
				t.Fatalf("gradient not finite at θ = π/2")
			}
		}
	}
	if _, err := tr2.stepSample(Set(&subspace.Subspace{Basis: p}), label, 0.05, 1e-3); err != nil {
		t.Fatal(err)
	}
	_ = r2
	for k, w := range tr2.Model().protos {
		if e := linalg.OrthonormalityError(w); e > 1e-13 {
			t.Errorf("prototype %d orthonormality %g after a step at π/2", k, e)
		}
	}
}

// checkTangentDerivatives compares, along 3 random tangent directions δ of
// the basis w, the directional derivative ⟨gw, δ⟩ of a cost with its
// central finite difference (cost(w ± hδ)).
func checkTangentDerivatives(t *testing.T, what string, gw, w *mat.Dense, h float64, rng *rand.Rand, cost func(ws *mat.Dense) float64) {
	t.Helper()
	for trial := 0; trial < 3; trial++ {
		delta := tangent(w, rng)
		pred := mat.Sum(elemMul(gw, delta))
		at := func(s float64) float64 {
			var ws mat.Dense
			ws.Scale(s, delta)
			ws.Add(w, &ws)
			return cost(&ws)
		}
		fd := (at(h) - at(-h)) / (2 * h)
		if math.Abs(fd-pred) > 1e-7*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: directional derivative %.10g, finite difference %.10g", what, pred, fd)
		}
	}
}

// TestAllFinite: allFinite is the conjunction of finite over the slice,
// for every length up to 9 with NaN, ±Inf or the largest finite value at
// every position.
func TestAllFinite(t *testing.T) {
	for n := 0; n <= 9; n++ {
		for pos := -1; pos < n; pos++ {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -0.0} {
				x := make([]float64, n)
				for i := range x {
					x[i] = float64(i) - 3.5
				}
				if pos >= 0 {
					x[pos] = v
				}
				want := true
				for _, y := range x {
					want = want && finite(y)
				}
				if got := allFinite(x); got != want {
					t.Fatalf("n %d, %g at %d: allFinite %v, want %v", n, v, pos, got, want)
				}
			}
		}
	}
}
