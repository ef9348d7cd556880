package baseline

import "math"

// tau replaces a non-positive curvature K_ii + K_jj − 2 K_ij of a working
// pair (two identical samples): LIBSVM's TAU.
const tau = 1e-12

// smo solves the dual of the binary soft-margin SVM (C-SVC),
//
//	min_α ½ αᵀQα − Σ α_i   subject to 0 <= α_i <= c, Σ y_i α_i = 0,
//
// Q_ij = y_i y_j K_ij, by sequential minimal optimisation with the
// second-order working-set selection of Fan, Chen and Lin (JMLR 6, 2005;
// LIBSVM's WSS2, without shrinking): i is the index in I_up with the
// largest −y_i ∇_i, j the index in I_low, below it, that decreases the
// objective most along the pair's direction. It stops when the maximal
// violation m(α) − M(α) = max_{I_up} −y∇ − min_{I_low} −y∇ is below tol
// (then every KKT condition holds within tol with the returned ρ), or
// after maxIter pair updates. Ties in the selection go to the lowest index,
// so the solution is a function of the input bits alone.
type smo struct {
	n     int
	k     []float64 // n x n kernel, row-major
	y     []float64 // ±1
	alpha []float64
	grad  []float64 // ∇ = Qα − 1
}

// reset sizes the solver for n samples and returns the kernel matrix to
// fill (row-major n x n) and the labels (±1).
func (s *smo) reset(n int) (k, y []float64) {
	s.n = n
	s.k = grow(s.k, n*n)
	s.y = grow(s.y, n)
	s.alpha = grow(s.alpha, n)
	s.grad = grow(s.grad, n)
	return s.k, s.y
}

func grow(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// start sets α = 0 (cold start), or keeps the current α (warm start from
// the solution for a smaller c, which stays feasible), and computes ∇.
func (s *smo) start(warm bool) {
	n := s.n
	if !warm {
		clear(s.alpha)
		for i := range s.grad {
			s.grad[i] = -1
		}
		return
	}
	for i := range n {
		g := -1.0
		yi := s.y[i]
		row := s.k[i*n : i*n+n]
		for j, a := range s.alpha {
			if a != 0 {
				g += float64(yi * s.y[j] * row[j] * a)
			}
		}
		s.grad[i] = g
	}
}

// solve runs SMO from the current α (see start) and returns ρ (the
// decision function is f(x) = Σ α_i y_i K(x_i, x) − ρ), the iterations
// used and whether the stopping rule was met.
func (s *smo) solve(c, tol float64, maxIter int) (rho float64, iter int, ok bool) {
	n, k, y, alpha, grad := s.n, s.k, s.y, s.alpha, s.grad
	for ; iter < maxIter; iter++ {
		// i: the largest −y_t ∇_t over I_up = {α_t < c, y_t = +1} ∪ {α_t > 0, y_t = −1}.
		gmax, i := math.Inf(-1), -1
		for t := range n {
			if y[t] > 0 && alpha[t] < c || y[t] < 0 && alpha[t] > 0 {
				if v := -y[t] * grad[t]; v > gmax {
					gmax, i = v, t
				}
			}
		}
		if i < 0 {
			return s.rho(c), iter, true
		}
		// j: over I_low = {α_t < c, y_t = −1} ∪ {α_t > 0, y_t = +1} with
		// −y_t ∇_t < gmax, the largest decrease b²/a, a = K_ii + K_tt − 2 K_it,
		// b = gmax + y_t ∇_t; gmin = min over I_low of −y_t ∇_t.
		gmin, j, best := math.Inf(1), -1, math.Inf(-1)
		ki := k[i*n : i*n+n]
		for t := range n {
			if !(y[t] < 0 && alpha[t] < c || y[t] > 0 && alpha[t] > 0) {
				continue
			}
			v := -y[t] * grad[t]
			if v < gmin {
				gmin = v
			}
			b := gmax - v
			if b <= 0 {
				continue
			}
			a := ki[i] + k[t*n+t] - 2*ki[t]
			if a <= 0 {
				a = tau
			}
			if dec := b * b / a; dec > best {
				best, j = dec, t
			}
		}
		if gmax-gmin < tol || j < 0 {
			return s.rho(c), iter, true
		}
		s.update(i, j, c)
	}
	return s.rho(c), iter, false
}

// update minimises the objective over α_i, α_j (LIBSVM's two-variable
// subproblem with clipping to the box and the line y_i α_i + y_j α_j =
// const) and updates ∇.
func (s *smo) update(i, j int, c float64) {
	n, k, y, alpha := s.n, s.k, s.y, s.alpha
	kii, kjj, kij := k[i*n+i], k[j*n+j], k[i*n+j]
	oi, oj := alpha[i], alpha[j]
	a := kii + kjj - 2*kij
	if a <= 0 {
		a = tau
	}
	gi, gj := s.grad[i], s.grad[j]
	ai, aj := oi, oj
	if y[i] != y[j] {
		delta := (-gi - gj) / a
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj, ai = 0, diff
			}
		} else if ai < 0 {
			ai, aj = 0, -diff
		}
		if diff > 0 {
			if ai > c {
				ai, aj = c, c-diff
			}
		} else if aj > c {
			aj, ai = c, c+diff
		}
	} else {
		delta := (gi - gj) / a
		sum := ai + aj
		ai -= delta
		aj += delta
		if sum > c {
			if ai > c {
				ai, aj = c, sum-c
			}
		} else if aj < 0 {
			aj, ai = 0, sum
		}
		if sum > c {
			if aj > c {
				aj, ai = c, sum-c
			}
		} else if ai < 0 {
			ai, aj = 0, sum
		}
	}
	alpha[i], alpha[j] = ai, aj
	// ∇_t += Q_ti Δα_i + Q_tj Δα_j, Q_tu = y_t y_u K_tu.
	di, dj := y[i]*(ai-oi), y[j]*(aj-oj)
	ki, kj := k[i*n:i*n+n], k[j*n:j*n+n]
	for t := range n {
		s.grad[t] += y[t] * (float64(ki[t]*di) + float64(kj[t]*dj))
	}
}

// rho is the offset of the decision function: the mean of y_t ∇_t over the
// free α_t (0 < α_t < c), else the midpoint of the bounds the KKT
// conditions leave for it (LIBSVM's calculate_rho).
func (s *smo) rho(c float64) float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	free := 0
	for t, a := range s.alpha {
		yg := s.y[t] * s.grad[t]
		switch {
		case a >= c:
			if s.y[t] < 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case a <= 0:
			if s.y[t] > 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			free++
			sum += yg
		}
	}
	if free > 0 {
		return sum / float64(free)
	}
	return (ub + lb) / 2
}
