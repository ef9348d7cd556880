package reference

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// StepInfo reports one SGD step. Distances and cost are those before the
// update.
type StepInfo struct {
	Plus, Minus   int     // indices of W⁺ and W⁻
	DPlus, DMinus float64 // d_λ(P, W⁺), d_λ(P, W⁻)
	Mu            float64 // μ = (d⁺ - d⁻) / (d⁺ + d⁻)
	Cost          float64 // φ(μ): μ, or the sigmoid 1/(1+exp(-β μ)) when Beta > 0
}

// winnerParts is what one winner contributes to the gradient.
type winnerParts struct {
	theta []float64  // ascending principal angles from the thin SVD of Pᵀ W
	V     *mat.Dense // W Q_W, the prototype's principal vectors (same span as W)
	UG    *mat.Dense // U G = P Q_P G, G = diag(2 λ_k θ_k / sin θ_k) (chordal: diag(2 λ_k cos θ_k))
}

// gradient is ∂E/∂V± and ∂E/∂λ of one sample at the current state.
type gradient struct {
	info          StepInfo
	plus, minus   winnerParts
	dVPlus        *mat.Dense // ∂E/∂V⁺ = -c (2 d⁻/S²) U⁺ G⁺
	dVMinus       *mat.Dense // ∂E/∂V⁻ = +c (2 d⁺/S²) U⁻ G⁻
	dLambdaPlus   []float64  // c (2/S²) d⁻ θ⁺²: the part through d⁺
	dLambdaMinus  []float64  // -c (2/S²) d⁺ θ⁻²: the part through d⁻
	dLambdaGlobal []float64  // c (2/S²) (d⁻ θ⁺² - d⁺ θ⁻²)
}

// activation returns φ(μ) and φ'(μ).
func (m *Model) activation(mu float64) (phi, dphi float64) {
	if m.Beta <= 0 {
		return mu, 1
	}
	phi = 1 / (1 + math.Exp(-m.Beta*mu))
	return phi, m.Beta * phi * (1 - phi)
}

// thetaOverSin is θ / sin θ for θ in [0, π/2], stable at 0 (limit 1).
func thetaOverSin(t float64) float64 {
	if t < 1e-3 {
		t2 := t * t
		return 1 + t2/6 + 7*t2*t2/360
	}
	return t / math.Sin(t)
}

// gradient computes everything Step needs from the state before the update.
func (m *Model) gradient(P *mat.Dense, y int, weight float64) (*gradient, error) {
	m.checkSample(P)
	if !finiteDense(P) {
		return nil, fmt.Errorf("reference: sample: %w", ErrNotFinite)
	}
	if math.IsNaN(weight) || math.IsInf(weight, 0) {
		return nil, fmt.Errorf("reference: weight %g: %w", weight, ErrNotFinite)
	}
	dist := m.Distances(P)
	for j, dj := range dist {
		if math.IsNaN(dj) || math.IsInf(dj, 0) {
			return nil, fmt.Errorf("reference: distance to prototype %d is %g: %w", j, dj, ErrNotFinite)
		}
	}
	plus, minus, dPlus, dMinus := m.winners(dist, y)
	if plus < 0 || minus < 0 {
		return nil, fmt.Errorf("reference: label %d: %w", y, ErrNoWinner)
	}
	S := dPlus + dMinus
	if S == 0 {
		return nil, ErrZeroDistance
	}
	mu := (dPlus - dMinus) / S
	phi, dphi := m.activation(mu)
	c := dphi * weight

	g := &gradient{info: StepInfo{Plus: plus, Minus: minus, DPlus: dPlus, DMinus: dMinus, Mu: mu, Cost: phi}}
	var err error
	if g.plus, err = m.winner(P, plus); err != nil {
		return nil, err
	}
	if g.minus, err = m.winner(P, minus); err != nil {
		return nil, err
	}

	g.dVPlus = new(mat.Dense)
	g.dVPlus.Scale(-c*2*dMinus/(S*S), g.plus.UG)
	g.dVMinus = new(mat.Dense)
	g.dVMinus.Scale(c*2*dPlus/(S*S), g.minus.UG)

	_, d := m.Dims()
	coef := c * 2 / (S * S)
	g.dLambdaPlus = make([]float64, d)
	g.dLambdaMinus = make([]float64, d)
	g.dLambdaGlobal = make([]float64, d)
	for k := 0; k < d; k++ {
		tp2 := m.term(g.plus.theta[k]) // θ⁺² (chordal: sin²θ⁺)
		tm2 := m.term(g.minus.theta[k])
		g.dLambdaPlus[k] = coef * dMinus * tp2
		g.dLambdaMinus[k] = -coef * dPlus * tm2
		g.dLambdaGlobal[k] = coef * (dMinus*tp2 - dPlus*tm2)
	}
	return g, nil
}

// winner factorises Pᵀ W_j = Q_P diag(cos θ) Q_Wᵀ and returns θ, V = W Q_W and
// U G = P (Q_P G).
func (m *Model) winner(P *mat.Dense, j int) (winnerParts, error) {
	W := m.Prototypes[j]
	lambda := m.lambda(j)
	_, d := W.Dims()
	var M mat.Dense
	M.Mul(P.T(), W)
	var svd mat.SVD
	if !svd.Factorize(&M, mat.SVDThin) {
		return winnerParts{}, fmt.Errorf("reference: Pᵀ W of prototype %d: %w", j, ErrSVD)
	}
	sv := svd.Values(nil) // descending
	var QP, QW mat.Dense
	svd.UTo(&QP)
	svd.VTo(&QW)

	theta := make([]float64, d)
	for k, s := range sv {
		t := math.Acos(clamp01(s))
		theta[k] = t
		// G_kk = -∂(λ_k θ_k²)/∂cos θ_k = 2 λ_k θ_k / sin θ_k; keeps the factor 2.
		gk := 2 * lambda[k] * thetaOverSin(t)
		if m.Chordal {
			gk = 2 * lambda[k] * math.Cos(t) // -∂(λ_k sin²θ_k)/∂cos θ_k
		}
		for i := 0; i < d; i++ {
			QP.Set(i, k, QP.At(i, k)*gk) // QP becomes Q_P G
		}
	}
	V := new(mat.Dense)
	V.Mul(W, &QW)
	UG := new(mat.Dense)
	UG.Mul(P, &QP)
	return winnerParts{theta: theta, V: V, UG: UG}, nil
}

// Step performs one SGD step of GRLGQ (Algorithm 2 of the paper) on the
// subspace P (D x d, orthonormal columns) with label y, prototype learning
// rate eta, relevance learning rate gamma and sample weight weight (1 for
// none). See the package documentation for the exact order of operations.
// On error the model is unchanged.
func (m *Model) Step(P *mat.Dense, y int, eta, gamma, weight float64) (StepInfo, error) {
	for _, v := range [...]float64{eta, gamma} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return StepInfo{}, fmt.Errorf("reference: learning rate %g: %w", v, ErrNotFinite)
		}
	}
	g, err := m.gradient(P, y, weight)
	if err != nil {
		return StepInfo{}, err
	}
	info := g.info

	// W± ← V± - η ∂E/∂V±, then the polar factor.
	newPlus, err := descend(g.plus.V, g.dVPlus, eta)
	if err != nil {
		return info, fmt.Errorf("reference: prototype %d: %w", info.Plus, err)
	}
	newMinus, err := descend(g.minus.V, g.dVMinus, eta)
	if err != nil {
		return info, fmt.Errorf("reference: prototype %d: %w", info.Minus, err)
	}

	// λ ← λ - γ ∂E/∂λ, floor, renormalise.
	var newGlobal, newLocalPlus, newLocalMinus []float64
	if m.Relevance {
		if m.LocalLambda == nil {
			if newGlobal, err = updateRelevance(m.Lambda, g.dLambdaGlobal, gamma, m.Floor); err != nil {
				return info, err
			}
		} else {
			if newLocalPlus, err = updateRelevance(m.LocalLambda[info.Plus], g.dLambdaPlus, gamma, m.Floor); err != nil {
				return info, fmt.Errorf("reference: relevances of prototype %d: %w", info.Plus, err)
			}
			if newLocalMinus, err = updateRelevance(m.LocalLambda[info.Minus], g.dLambdaMinus, gamma, m.Floor); err != nil {
				return info, fmt.Errorf("reference: relevances of prototype %d: %w", info.Minus, err)
			}
		}
	}

	// Everything is finite: commit.
	m.Prototypes[info.Plus] = newPlus
	m.Prototypes[info.Minus] = newMinus
	if newGlobal != nil {
		copy(m.Lambda, newGlobal)
	}
	if newLocalPlus != nil {
		copy(m.LocalLambda[info.Plus], newLocalPlus)
		copy(m.LocalLambda[info.Minus], newLocalMinus)
	}
	return info, nil
}

// descend returns the orthonormalised V - eta*dV.
func descend(V, dV *mat.Dense, eta float64) (*mat.Dense, error) {
	var W mat.Dense
	W.Scale(eta, dV)
	W.Sub(V, &W)
	return orthonormalize(&W)
}

// orthonormalize returns the polar factor U Vᵀ of the thin SVD W = U Σ Vᵀ:
// the orthonormal basis of span(W) nearest to W.
func orthonormalize(W *mat.Dense) (*mat.Dense, error) {
	if !finiteDense(W) {
		return nil, ErrNotFinite
	}
	D, _ := W.Dims()
	var svd mat.SVD
	if !svd.Factorize(W, mat.SVDThin) {
		return nil, ErrSVD
	}
	sv := svd.Values(nil)
	if !(sv[len(sv)-1] > float64(D)*eps*sv[0]) {
		return nil, ErrRankDeficient
	}
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	out := new(mat.Dense)
	out.Mul(&U, V.T())
	if !finiteDense(out) {
		return nil, ErrNotFinite
	}
	return out, nil
}

const eps = 0x1p-52

// updateRelevance returns λ - γ g, clamped at floor (at 0 if floor <= 0) and
// renormalised to sum 1.
func updateRelevance(lambda, grad []float64, gamma, floor float64) ([]float64, error) {
	floor = math.Max(floor, 0)
	out := make([]float64, len(lambda))
	sum := 0.0
	for k := range lambda {
		if math.IsNaN(grad[k]) || math.IsInf(grad[k], 0) {
			return nil, ErrNotFinite
		}
		out[k] = math.Max(lambda[k]-gamma*grad[k], floor)
		sum += out[k]
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil, ErrNotFinite
	}
	if sum <= 0 {
		return nil, ErrRelevance
	}
	for k := range out {
		out[k] /= sum
	}
	return out, nil
}

// Epoch runs Step on samples[order[0]], samples[order[1]], ... (order nil
// means 0, 1, ..., N-1), with labels[i] and weights[i] (weights nil means 1)
// for sample i. It returns the mean over the visited samples of φ(μ) before
// each one's step. It stops at the first error, wrapped with the position and
// sample index; the model then holds the state after the last successful step.
func (m *Model) Epoch(samples []*mat.Dense, labels []int, order []int, eta, gamma float64, weights []float64) (meanCost float64, err error) {
	if len(labels) != len(samples) || (weights != nil && len(weights) != len(samples)) {
		panic(errShape)
	}
	if order == nil {
		order = make([]int, len(samples))
		for i := range order {
			order[i] = i
		}
	}
	if len(order) == 0 {
		return 0, nil
	}
	sum := 0.0
	for t, i := range order {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		info, err := m.Step(samples[i], labels[i], eta, gamma, w)
		if err != nil {
			return math.NaN(), fmt.Errorf("reference: epoch position %d, sample %d: %w", t, i, err)
		}
		sum += info.Cost
	}
	return sum / float64(len(order)), nil
}

// StepImage performs one SGD step of Algorithm 2 on a single image x (any
// positive scale) as a training sample: the 1-D subspace u = x/‖x‖ at
// distance d = θ_1² (chordal: sin²θ_1, and 2 cos θ for 2 θ/sin θ below) to
// every prototype (ImageDistances; relevances play no
// part and are not changed). For each winner, with q = Wᵀu/‖Wᵀu‖ the
// prototype's principal direction for θ_1,
//
//	∂E/∂W⁺ = -c (2 d⁻/S²) (2 θ⁺/sin θ⁺) u q⁺ᵀ,  ∂E/∂W⁻ = +c (2 d⁺/S²) (2 θ⁻/sin θ⁻) u q⁻ᵀ,
//
// c = φ'(μ)·weight, and W ← polar factor of W - η ∂E/∂W. A winner with
// Wᵀu = 0 (θ_1 = π/2, q undefined) does not move. On error the model is
// unchanged.
func (m *Model) StepImage(x []float64, y int, eta, weight float64) (StepInfo, error) {
	D, _ := m.Dims()
	if len(x) != D {
		panic(errShape)
	}
	for _, v := range [...]float64{eta, weight} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return StepInfo{}, fmt.Errorf("reference: %g: %w", v, ErrNotFinite)
		}
	}
	u := mat.NewVecDense(D, append([]float64(nil), x...))
	nx := mat.Norm(u, 2) // NaN or Inf for a non-finite pixel
	if !(nx > 0) || math.IsInf(nx, 0) {
		return StepInfo{}, fmt.Errorf("reference: image: %w", ErrNotFinite)
	}
	u.ScaleVec(1/nx, u)
	dist := m.ImageDistances(x)
	plus, minus, dPlus, dMinus := m.winners(dist, y)
	if plus < 0 || minus < 0 {
		return StepInfo{}, fmt.Errorf("reference: label %d: %w", y, ErrNoWinner)
	}
	S := dPlus + dMinus
	if S == 0 {
		return StepInfo{}, ErrZeroDistance
	}
	mu := (dPlus - dMinus) / S
	phi, dphi := m.activation(mu)
	c := dphi * weight
	info := StepInfo{Plus: plus, Minus: minus, DPlus: dPlus, DMinus: dMinus, Mu: mu, Cost: phi}
	var news [2]*mat.Dense
	for side, j := range [2]int{plus, minus} {
		W := m.Prototypes[j]
		_, d := W.Dims()
		a := mat.NewVecDense(d, nil)
		a.MulVec(W.T(), u)
		na := mat.Norm(a, 2)
		if na == 0 {
			news[side] = W
			continue
		}
		theta := math.Acos(clamp01(na))
		var coef float64
		if side == 0 {
			coef = -c * 2 * dMinus / (S * S)
		} else {
			coef = c * 2 * dPlus / (S * S)
		}
		if m.Chordal {
			coef *= 2 * math.Cos(theta)
		} else {
			coef *= 2 * thetaOverSin(theta)
		}
		var grad mat.Dense // coef u qᵀ, q = a/‖a‖
		grad.Outer(coef/na, u, a)
		next, err := descend(W, &grad, eta)
		if err != nil {
			return info, fmt.Errorf("reference: prototype %d: %w", j, err)
		}
		news[side] = next
	}
	m.Prototypes[plus], m.Prototypes[minus] = news[0], news[1]
	return info, nil
}
