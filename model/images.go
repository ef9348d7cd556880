package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// Training on single images.
//
// When the data are single images and a model will classify single images
// (the image-classification protocols: a test image is the 1-D subspace
// x/‖x‖ and its distance to a prototype W is θ_1 = arccos(‖Wᵀx‖/‖x‖)),
// the images themselves can be the training samples (model.Image): Init,
// Train and Continue run Algorithm 2 with a 1-D sample.
// A 1-D subspace has one principal angle, so its distance is d = θ_1²
// (sin²θ_1 for a Chordal model: the same ranking as prediction) and the
// relevances, which weight the angles of d-dimensional sets, are neither
// used nor changed by an image step. With q = Wᵀx/‖Wᵀx‖ (Q_W's column for θ_1), u = x/‖x‖ and v = W q,
// the step of Algorithm 2 becomes
//
//	W⁺ ← W⁺ + η c (2d⁻/S²) G⁺ u q⁺ᵀ,  W⁻ ← W⁻ − η c (2d⁺/S²) G⁻ u q⁻ᵀ,
//	G = 2 θ_1/sin θ_1  (Chordal: G = 2 cos θ_1),
//
// each orthonormal again by an exact rotation: only v moves, to the
// direction of v + α u, and the rest of W's span, orthogonal to x, stays
// (a step so large that it nearly cancels v is re-orthonormalised by CGS2
// instead). This is the gradient of the same cost
// μ = (d⁺ − d⁻)/(d⁺ + d⁻) with respect to W. When x is orthogonal to a
// winner (θ_1 = π/2 exactly) the direction q is undefined and that winner
// does not move.

// checkImages validates training images and labels and returns the
// number of pixels and of classes (max label + 1). dim, classes >= 0 are
// required values (a model's); -1 means "take from the data".
func checkImages(x [][]float64, y []int, dim, classes int) (int, int, error) {
	if len(x) == 0 || len(x) != len(y) {
		return 0, 0, fmt.Errorf("model: %w: %d images and %d labels", ErrData, len(x), len(y))
	}
	maxLabel := -1
	for i, img := range x {
		if dim < 0 {
			dim = len(img)
		}
		if len(img) != dim {
			return 0, 0, fmt.Errorf("model: %w: image %d has %d pixels, want %d", ErrData, i, len(img), dim)
		}
		if _, err := imageScale(img); err != nil {
			return 0, 0, fmt.Errorf("model: image %d: %w", i, err)
		}
		if y[i] < 0 || y[i] >= MaxClasses {
			return 0, 0, fmt.Errorf("model: %w: image %d has label %d", ErrData, i, y[i])
		}
		maxLabel = max(maxLabel, y[i])
	}
	if dim < 1 || dim > MaxDim {
		return 0, 0, fmt.Errorf("model: %w: images of %d pixels", ErrData, dim)
	}
	if classes < 0 {
		classes = maxLabel + 1
		if classes < 2 {
			return 0, 0, fmt.Errorf("model: %w: need at least 2 classes, labels go up to %d", ErrData, maxLabel)
		}
	} else if maxLabel >= classes {
		return 0, 0, fmt.Errorf("model: %w: label %d but the model has %d classes", ErrData, maxLabel, classes)
	}
	return dim, classes, nil
}

// initImages is Init for training images.
func initImages(ctx context.Context, opt Options, x [][]float64, y []int) (*Model, error) {
	opt, err := normalise(opt)
	if err != nil {
		return nil, err
	}
	d := opt.Model.SubspaceDim
	if d < 1 {
		return nil, fmt.Errorf("model: %w: SubspaceDim must be set (>= 1) to train on single images", ErrConfig)
	}
	dim, classes, err := checkImages(x, y, -1, -1)
	if err != nil {
		return nil, err
	}
	if d > MaxSubDim || d > dim {
		return nil, fmt.Errorf("model: %w: subspaces of dimension %d in %d pixels", ErrConfig, d, dim)
	}
	m, err := newModel(opt, dim, d, classes)
	if err != nil {
		return nil, err
	}
	if err := initImagePrototypes(ctx, m, x, y); err != nil {
		return nil, err
	}
	return m, nil
}

// initImagePrototypes is initPrototypes for single training images (see
// Init and placePrototypes).
func initImagePrototypes(ctx context.Context, m *Model, x [][]float64, y []int) error {
	minItems := 1
	if m.train.Init == InitSample {
		minItems = m.d
	}
	var pca *pcaWork
	return placePrototypes(ctx, m, y, "image", minItems, func(_ int, idx []int, rng *rand.Rand, orth *linalg.Orthonormalizer) placeFunc {
		return func(w *linalg.Dense, j int) error {
			if m.train.Init == InitSample {
				perm := append([]int(nil), idx...)
				for r := 0; r < m.d; r++ { // partial Fisher–Yates
					s := r + rng.IntN(len(perm)-r)
					perm[r], perm[s] = perm[s], perm[r]
					img := x[perm[r]]
					nrm, _ := imageScale(img)
					for i, v := range img {
						w.Data[i*w.Stride+r] = v / nrm
					}
				}
				addNoise(w, m.train.InitNoise, rng)
				return orth.Orthonormalize(w)
			}
			// InitPCA: the class's images (j = 0) or a bootstrap resample
			// (j >= 1), each distinct image once as a column scaled by the
			// square root of its multiplicity.
			count := resample(len(idx), j, rng)
			n := 0
			for _, v := range count {
				if v > 0 {
					n++
				}
			}
			if n < m.d {
				return fmt.Errorf("%w: %d distinct images for a %d-dimensional subspace", ErrData, n, m.d)
			}
			xs := linalg.NewDense(m.dim, n)
			col := 0
			for i, k := range idx {
				if count[i] == 0 {
					continue
				}
				sc := math.Sqrt(count[i])
				for r, v := range x[k] {
					xs.Data[r*xs.Stride+col] = float64(sc * v)
				}
				col++
			}
			if pca == nil {
				pca = newPCAWork(m.dim, m.d)
			}
			return pca.dominant(ctx, w, []*linalg.Dense{xs}, []float64{1}, rng)
		}
	})
}

// stepImage is stepSample on the single image x (see the comment at the top of
// images.go).
func (t *trainer) stepImage(x []float64, y int, eta float64) (stepResult, error) {
	var r stepResult
	if t.eng == nil {
		return r, fmt.Errorf("model: trainer: %w", errClosed)
	}
	dim, d := t.base.dim, t.base.d
	if len(x) != dim {
		return r, fmt.Errorf("model: %w: image has %d pixels, model wants %d", ErrData, len(x), dim)
	}
	if y < 0 || y >= t.base.classes {
		return r, fmt.Errorf("model: %w: label %d outside [0, %d)", ErrData, y, t.base.classes)
	}
	nrm, err := imageScale(x)
	if err != nil {
		return r, fmt.Errorf("model: image: %w", err)
	}
	if r, err = t.imageGradient(x, y, nrm); err != nil || r.Skipped {
		return r, err
	}
	defer t.sync(r.Plus, r.Minus)
	// The exact rank-one rotation (see the comment at the top): for each
	// winner W with q = Wᵀx/‖Wᵀx‖ and v = W q, the update W + α x qᵀ
	// (α = −η f ‖Wᵀx‖, t.coef = f Wᵀx) moves only v, to w = v + α x, which
	// is orthogonal to the rest of W's span (W q⊥ ⟂ x); so
	// W ← W + (w/‖w‖ − v) qᵀ is orthonormal again without a
	// re-orthonormalisation. First both new columns (nothing changes yet),
	// then both updates. Products are rounded before every sum (never
	// fused), so this arithmetic adds no FMA-dependent bits to those of
	// the kernels (Wᵀx, ‖x‖), which are fixed per implementation.
	var skip [2]bool
	for side, k := range [2]int{r.Plus, r.Minus} {
		an := t.imgNorm[side]
		alpha := float64(float64(-eta*t.imgF[side]) * an)
		if !finite(alpha) {
			return r, fmt.Errorf("model: update of prototype %d: %w", k, ErrNotFinite)
		}
		if an == 0 || alpha == 0 {
			skip[side] = true // x ⟂ W: no direction to move
			continue
		}
		wk := t.protos[k]
		q, a := t.th[side][:d], t.cs[side][:d]
		for j, v := range a {
			q[j] = v / an
		}
		v, w := t.imgV[side], t.imgW[side]
		rotationColumn(v, w, wk, q, x, alpha)
		var ss float64
		for _, wi := range w {
			ss += float64(wi * wi)
		}
		nu := math.Sqrt(ss)
		if !finite(nu) {
			return r, fmt.Errorf("model: update of prototype %d: %w", k, ErrNotFinite)
		}
		if nu < minRotationNorm {
			// The step all but cancels v (a huge step away from the
			// image): w's direction is too inaccurate for the exact
			// rotation; update and re-orthonormalise instead.
			return t.stepImageCGS2(r, x, eta)
		}
		t.imgNu[side] = nu
	}
	for side, k := range [2]int{r.Plus, r.Minus} {
		if skip[side] {
			continue
		}
		wk := t.protos[k]
		q, v, w := t.th[side][:d], t.imgV[side], t.imgW[side]
		inv := 1 / t.imgNu[side]
		for i := range x {
			z := float64(w[i]*inv) - v[i]
			row := wk.Data[i*wk.Stride : i*wk.Stride+d]
			for j, qj := range q {
				row[j] += float64(z * qj)
			}
		}
	}
	return r, nil
}

// rotationColumn sets v = W q and w = v + α x, v[i] = Σ_j W[i][j] q[j]
// summed in order of j with every product rounded (never fused), four
// rows at a time (independent chains; the same bits as one at a time).
func rotationColumn(v, w []float64, wk *linalg.Dense, q, x []float64, alpha float64) {
	d, ld := len(q), wk.Stride
	n := len(x)
	i := 0
	for ; i+4 <= n; i += 4 {
		r0 := wk.Data[i*ld : i*ld+d]
		r1 := wk.Data[(i+1)*ld : (i+1)*ld+d]
		r2 := wk.Data[(i+2)*ld : (i+2)*ld+d]
		r3 := wk.Data[(i+3)*ld : (i+3)*ld+d]
		var s0, s1, s2, s3 float64
		for j, qj := range q {
			s0 += float64(r0[j] * qj)
			s1 += float64(r1[j] * qj)
			s2 += float64(r2[j] * qj)
			s3 += float64(r3[j] * qj)
		}
		v[i], v[i+1], v[i+2], v[i+3] = s0, s1, s2, s3
		w[i] = s0 + float64(alpha*x[i])
		w[i+1] = s1 + float64(alpha*x[i+1])
		w[i+2] = s2 + float64(alpha*x[i+2])
		w[i+3] = s3 + float64(alpha*x[i+3])
	}
	for ; i < n; i++ {
		row := wk.Data[i*ld : i*ld+d]
		var s float64
		for j, qj := range q {
			s += float64(row[j] * qj)
		}
		v[i] = s
		w[i] = s + float64(alpha*x[i])
	}
}

// minRotationNorm: below this ‖w‖ = ‖v + α x‖ (1 when the step is small)
// stepImage re-orthonormalises instead of rotating exactly (a variable
// for the tests).
var minRotationNorm = 1.0 / 16

// stepImageCGS2 is the step of stepImage by the general route: W += x cᵀ
// with c = −η t.coef, then CGS2; on failure both winners are restored.
func (t *trainer) stepImageCGS2(r stepResult, x []float64, eta float64) (stepResult, error) {
	d := t.base.d
	for i, v := range t.coef[:2*d] {
		t.coef[i] = float64(-eta * v)
		if !finite(t.coef[i]) {
			return r, fmt.Errorf("model: update of prototype %d: %w", [2]int{r.Plus, r.Minus}[i/d], ErrNotFinite)
		}
	}
	for side, k := range [2]int{r.Plus, r.Minus} {
		wk := t.protos[k]
		t.v[side].CopyFrom(wk)
		c := t.coef[side*d : side*d+d]
		for i, xi := range x {
			row := wk.Data[i*wk.Stride : i*wk.Stride+d]
			for j, cj := range c {
				row[j] += float64(xi * cj)
			}
		}
		if err := t.orth.Orthonormalize(wk); err != nil {
			wk.CopyFrom(t.v[side])
			if side == 1 {
				t.protos[r.Plus].CopyFrom(t.v[0])
			}
			return r, stepError(fmt.Sprintf("orthonormalising prototype %d", k), err)
		}
	}
	return r, nil
}

// imageAccuracy returns the fraction of the images x (labels y) whose
// nearest prototype by θ_1 has their label.
func (t *trainer) imageAccuracy(x [][]float64, y []int) (float64, error) {
	p := len(t.protos)
	correct := 0
	for i, img := range x {
		if err := t.eng.ImageDistances(t.dist, nil, img); err != nil {
			return 0, stepError(fmt.Sprintf("validation image %d", i), err)
		}
		k := nearest(t.dist[:p])
		if k >= 0 && t.base.labels[k] == y[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(x)), nil
}

// imageGradient computes the winners of image x (norm nrm, label y) and
// the gradients of its cost with respect to the winners' bases:
// ∂E/∂W⁺ = x t.coef[0:d]ᵀ and ∂E/∂W⁻ = x t.coef[d:2d]ᵀ, where
// t.coef[side] = g q/‖x‖ with q = Wᵀx/‖Wᵀx‖ and g = ∓c (2d∓/S²) 2θ/sin θ
// (Chordal: 2 cos θ; zero when Wᵀx = 0).
func (t *trainer) imageGradient(x []float64, y int, nrm float64) (stepResult, error) {
	dim, d, p := t.base.dim, t.base.d, len(t.protos)
	theta := t.theta[:p]
	t.eng.SetSolo(t.imageSolo)
	if err := t.eng.ImageDistances(t.dist, theta, x); err != nil {
		return stepResult{}, stepError("image distances", err)
	}
	r, c, err := t.winners(y)
	if err != nil || r.Skipped {
		return r, err
	}
	s := r.DPlus + r.DMinus
	inv := 2 / float64(s*s)
	scale := [2]float64{-float64(c * float64(inv*r.DMinus)), float64(c * float64(inv*r.DPlus))}
	for side, k := range [2]int{r.Plus, r.Minus} {
		w := t.protos[k]
		a := t.cs[side][:d]
		kernels.AB(a, d, x, dim, w.Data, w.Stride, 1, dim, d)
		var n2 float64
		for _, v := range a {
			n2 += float64(v * v)
		}
		an := math.Sqrt(n2)
		var g float64
		if t.base.cfg.Distance == Chordal {
			// ∂sin²θ/∂cos θ = −2 cos θ, cos θ = ‖Wᵀx‖/‖x‖.
			g = float64(scale[side]*2) * cosine(an/nrm)
		} else {
			g = float64(scale[side]*2) * thetaOverSin(theta[k])
		}
		if !finite(g) || !finite(an) {
			return r, fmt.Errorf("model: prototype gradient %v: %w", g, ErrNotFinite)
		}
		f := 0.0
		if an > 0 {
			f = g / float64(nrm*an)
		}
		for j, v := range a {
			t.coef[side*d+j] = float64(f * v)
		}
		t.imgF[side], t.imgNorm[side] = f, an
	}
	return r, nil
}
