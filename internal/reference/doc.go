// Package reference is a plain implementation of GRLGQ (Generalized Relevance
// Learning Grassmann Quantization, Mohammadi et al., sections 3-4) written
// straight from the paper with gonum only. It is the oracle: the fast model in
// model/ is tested against it and bench/ times it beside the fast model. It
// imports no other package of this module, so that a bug elsewhere cannot hide
// in both.
//
// # Objects
//
// A subspace P and a prototype W are *mat.Dense of D x d with orthonormal
// columns (one basis vector per column; gonum stores row-major, which nothing
// here depends on). Only the span matters to every distance. A Model holds the prototypes,
// their labels and the relevances λ (len d, λ_k >= 0, Σ λ_k = 1). With
// LocalLambda non-nil, prototype j uses its own LocalLambda[j] and Lambda is
// ignored everywhere (distances, gradients and updates).
//
// # Distance
//
// M = Pᵀ W (mat.Dense.Mul) has singular values σ_1 >= ... >= σ_d (mat.SVD);
// θ_k = arccos(clamp(σ_k, 0, 1)), so angles are ascending; the distance is
// d_λ(P, W) = Σ_k λ_k θ_k². A single image x is the 1-D subspace x/‖x‖; its
// only principal angle to W is θ_1 = arccos(clamp(‖Wᵀx‖/‖x‖, 0, 1)) and
// ImageDistances returns θ_1² (relevances play no part: an image has one
// angle, and ranking by θ_1² is ranking by θ_1).
//
// With Chordal set the distance is the relevance-weighted chordal one,
// Σ_k λ_k sin²θ_k (sin²θ_1 for an image), and every θ_k² below becomes
// sin²θ_k; since sin²θ = 1 − cos²θ, −∂(λ_k sin²θ_k)/∂cos θ_k = 2 λ_k cos θ_k
// replaces 2 λ_k θ_k / sin θ_k in G (and 2 cos θ_1 replaces 2 θ_1/sin θ_1
// in StepImage). Everything else is the same.
//
// # One step (Algorithm 2), in this order
//
//  1. Distances to all prototypes (singular values only). W⁺ = nearest with
//     label y, W⁻ = nearest with another label; ties go to the lowest index
//     (a strict "<" while scanning prototypes 0, 1, ...). NaN never wins.
//     No W⁺ or no W⁻ is ErrNoWinner. S = d⁺ + d⁻; S == 0 is ErrZeroDistance.
//     μ = (d⁺ - d⁻)/S; φ(μ) = μ (Beta == 0) or 1/(1+exp(-Beta μ)); φ'(μ) = 1
//     or Beta φ (1-φ). d⁺, d⁻ are the distances of this first pass.
//  2. For each winner: thin SVD Pᵀ W = Q_P diag(cos θ) Q_Wᵀ (angles
//     recomputed from this factorisation), U = P Q_P, V = W Q_W and
//     G = diag(2 λ_k θ_k / sin θ_k). The factor 2 is kept, as in the paper's
//     equations and the authors' NumPy code (their PyTorch code drops it and
//     absorbs it into η): η values from the PyTorch code must be halved here.
//     θ/sin θ is 1 + θ²/6 + 7θ⁴/360 for θ < 1e-3 (its limit 1 at θ = 0).
//  3. With c = φ'(μ) * weight:
//     ∂E/∂V⁺ = -c (2 d⁻/S²) U⁺ G⁺,  ∂E/∂V⁻ = +c (2 d⁺/S²) U⁻ G⁻,
//     W± ← V± - η ∂E/∂V±.
//  4. If Relevance: ∂E/∂λ = c (2/S²)(d⁻ θ⁺² - d⁺ θ⁻²) element-wise (local
//     relevances: λ⁺ gets c (2/S²) d⁻ θ⁺², λ⁻ gets -c (2/S²) d⁺ θ⁻²);
//     λ ← λ - γ ∂E/∂λ; λ_k ← max(λ_k, Floor); λ ← λ / Σλ. (So after the
//     renormalisation a λ_k may sit slightly below Floor.)
//  5. Re-orthonormalise W⁺ and W⁻ by the polar factor of the thin SVD
//     W = U Σ Vᵀ → W = U Vᵀ (the span is what every distance sees).
//     σ_min <= D·ε·σ_max is ErrRankDeficient.
//
// Epoch runs Step over samples in the caller's order (a fresh permutation
// per epoch is the caller's job), with per-sample weights (turn class weights
// into per-sample weights first), and returns the unweighted mean of φ(μ)
// taken before each sample's step.
//
// StepImage is the same step with a single image x as the sample: the 1-D
// subspace u = x/‖x‖ at distance θ_1² (ImageDistances), ∂E/∂W± =
// ∓c (2d∓/S²)(2θ_1/sin θ_1) u qᵀ with q = Wᵀu/‖Wᵀu‖, the polar factor as in
// step 5, relevances untouched (the oracle of the model package's step on an image).
//
// Every gradient uses the state before any update. The step is transactional:
// the new prototypes and relevances are computed into fresh memory, checked
// for finiteness, and only then stored; on any error the model is unchanged.
//
// # Ownership and aliasing
//
// Methods never modify their arguments. Step, StepImage and Epoch replace
// m.Prototypes[plus] and m.Prototypes[minus] by newly allocated matrices and
// write the relevance slice in place (Lambda or LocalLambda[plus/minus]).
// Read-only methods (Angles, Distances, ImageDistances, Winners, Predict*)
// are safe for concurrent use; Step and Epoch are not.
//
// Wrong shapes panic with "reference: dimension mismatch" (programmer
// error); bad data and numerical failure are returned errors testable with
// errors.Is: ErrNotFinite, ErrNoWinner, ErrZeroDistance, ErrRankDeficient,
// ErrSVD, ErrRelevance.
package reference
