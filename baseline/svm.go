package baseline

import "slices"

// svmSetup is the SMO settings.
type svmSetup struct {
	tol     float64
	maxIter int // 0: max(100000, 100 n) per binary problem
}

// svmWork is one goroutine's scratch for the SVM.
type svmWork struct {
	s     smo
	dec   []float64 // decision values: [c][duel][test]
	votes []int
	score []float64
	idx   []int
	model binarySVM // the solution duel hands to its emit
}

// ovoPredict trains one-vs-one SVMs on the samples train (compact classes
// cls, nc classes in all) for every penalty of grid in order (each
// binary problem warm-started from its solution for the previous penalty)
// and writes, for grid[g], the predicted class of test[t] to
// pred[g*len(test)+t]. It returns the SMO iterations and the number of
// binary problems stopped by the cap.
//
// The classes of the training part are dueled in pairs (a < b, class a the
// positive side); a test sample gets a vote from each duel (f > 0: a,
// else b) and its class is the one with the most votes, ties going to the
// larger sum of its duels' decision values (f for a, −f for b), then to the
// lower class.
func ovoPredict(p *Pairs, train, cls []int, nc int, grid []float64, test []int, pred []int, st *svmSetup, w *svmWork) (iters, unconverged int) {
	present := make([][]int, nc) // positions in train, by class
	for t, c := range cls {
		present[c] = append(present[c], t)
	}
	var classes []int
	for c, idx := range present {
		if len(idx) > 0 {
			classes = append(classes, c)
		}
	}
	nt := len(test)
	if len(classes) == 1 {
		for g := range grid {
			for t := range nt {
				pred[g*nt+t] = classes[0]
			}
		}
		return 0, 0
	}
	nd := len(classes) * (len(classes) - 1) / 2
	w.dec = grow(w.dec, len(grid)*nd*nt)
	duel := 0
	for ia, a := range classes {
		for _, b := range classes[ia+1:] {
			it, un := w.duel(p, train, present[a], present[b], grid, st, func(g int, m *binarySVM) {
				m.decide(p, test, w.dec[(g*nd+duel)*nt:(g*nd+duel+1)*nt])
			})
			iters += it
			unconverged += un
			duel++
		}
	}
	if cap(w.votes) < nc {
		w.votes = make([]int, nc)
	}
	votes := w.votes[:nc]
	if cap(w.score) < nc {
		w.score = make([]float64, nc)
	}
	score := w.score[:nc]
	for g := range grid {
		for t := range nt {
			pred[g*nt+t] = vote(classes, w.dec[g*nd*nt+t:], nt, votes, score)
		}
	}
	return iters, unconverged
}

// vote returns the one-vs-one decision among classes (ascending) from the
// decision values of their duels (a, b), a < b in the order of the loops
// over classes, duel i's value at dec[i*stride]: each duel votes for a
// when its value is positive, else for b; the most votes win, ties going
// to the larger sum of the class's decision values (f for a, −f for b),
// then to the lower class. votes and score (len >= the largest class + 1)
// are scratch.
func vote(classes []int, dec []float64, stride int, votes []int, score []float64) int {
	for _, c := range classes {
		votes[c], score[c] = 0, 0
	}
	duel := 0
	for ia, a := range classes {
		for _, b := range classes[ia+1:] {
			f := dec[duel*stride]
			if f > 0 {
				votes[a]++
			} else {
				votes[b]++
			}
			score[a] += f
			score[b] -= f
			duel++
		}
	}
	best := classes[0]
	for _, c := range classes[1:] {
		if votes[c] > votes[best] || votes[c] == votes[best] && score[c] > score[best] {
			best = c
		}
	}
	return best
}

// binarySVM is one solved binary problem: f(q) = Σ_r coef_r K(sv_r, q) −
// ρ over its support vectors (sample indices of the table, in the order
// of the problem), coef_r = α_r y_r.
type binarySVM struct {
	sv   []int
	coef []float64
	rho  float64
}

// decide writes the decision value of test[t] to dec[t]: −ρ plus the
// support vectors' terms in order, with the normalised kernel.
func (m *binarySVM) decide(p *Pairs, test []int, dec []float64) {
	for t, q := range test {
		f := -m.rho
		for r, i := range m.sv {
			f += float64(m.coef[r] * p.normKernel(i, q))
		}
		dec[t] = f
	}
}

// duel solves the binary problem of classes a (positions pa in train, the
// positive side) and b (pb) for every penalty of grid in order (each
// warm-started from the previous one's solution) and hands each solution
// to emit (its slices are w's, valid until emit returns). The kernel is
// the projection kernel divided by √(d_i d_j) (K(X, X) = 1), so that C
// means the same for every subspace dimension.
func (w *svmWork) duel(p *Pairs, train, pa, pb []int, grid []float64, st *svmSetup, emit func(g int, m *binarySVM)) (iters, unconverged int) {
	w.idx = append(append(w.idx[:0], pa...), pb...)
	n := len(w.idx)
	k, y := w.s.reset(n)
	for r, tr := range w.idx {
		i := train[tr]
		row := k[r*n : r*n+n]
		for c, tc := range w.idx {
			row[c] = p.normKernel(i, train[tc])
		}
		y[r] = 1
		if r >= len(pa) {
			y[r] = -1
		}
	}
	maxIter := st.maxIter
	if maxIter <= 0 {
		maxIter = max(100000, 100*n)
	}
	for g, c := range grid {
		w.s.start(g > 0)
		rho, it, ok := w.s.solve(c, st.tol, maxIter)
		iters += it
		if !ok {
			unconverged++
		}
		// Support vectors only, in index order.
		m := &w.model
		m.sv, m.coef, m.rho = m.sv[:0], m.coef[:0], rho
		for r, a := range w.s.alpha {
			if a != 0 {
				m.sv = append(m.sv, train[w.idx[r]])
				m.coef = append(m.coef, a*y[r])
			}
		}
		emit(g, m)
	}
	return iters, unconverged
}

// ovoModel is a trained one-vs-one SVM (ovoFit): the classes present in
// its training part, ascending, and one binary SVM per duel (a, b), a < b,
// in the order of ovoPredict's loops.
type ovoModel struct {
	classes []int
	duels   []binarySVM
}

// ovoFit trains the one-vs-one SVM with penalty c on the samples train
// (compact classes cls, nc classes in all), as ovoPredict does for a grid
// of one value, and keeps it (its own memory) for predict.
func ovoFit(p *Pairs, train, cls []int, nc int, c float64, st *svmSetup, w *svmWork) (m *ovoModel, iters, unconverged int) {
	present := make([][]int, nc)
	for t, k := range cls {
		present[k] = append(present[k], t)
	}
	m = &ovoModel{}
	for k, idx := range present {
		if len(idx) > 0 {
			m.classes = append(m.classes, k)
		}
	}
	for ia, a := range m.classes {
		for _, b := range m.classes[ia+1:] {
			it, un := w.duel(p, train, present[a], present[b], []float64{c}, st, func(_ int, s *binarySVM) {
				m.duels = append(m.duels, binarySVM{sv: slices.Clone(s.sv), coef: slices.Clone(s.coef), rho: s.rho})
			})
			iters += it
			unconverged += un
		}
	}
	return m, iters, unconverged
}

// predict writes the class of test[t] to pred[t] (ovoPredict's vote).
func (m *ovoModel) predict(p *Pairs, test, pred []int, ww *work) {
	w := &ww.svm
	nt := len(test)
	if len(m.classes) == 1 {
		for t := range nt {
			pred[t] = m.classes[0]
		}
		return
	}
	nd := len(m.duels)
	w.dec = grow(w.dec, nd*nt)
	for d := range m.duels {
		m.duels[d].decide(p, test, w.dec[d*nt:(d+1)*nt])
	}
	nc := m.classes[len(m.classes)-1] + 1
	if cap(w.votes) < nc {
		w.votes = make([]int, nc)
	}
	if cap(w.score) < nc {
		w.score = make([]float64, nc)
	}
	for t := range nt {
		pred[t] = vote(m.classes, w.dec[t:], nt, w.votes[:nc], w.score[:nc])
	}
}

func pick(x []int, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = x[j]
	}
	return out
}
