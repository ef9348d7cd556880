// Package baseline runs the classifiers a reviewer of an image-set paper
// asks for beside GRLGQ, on the same splits: nearest neighbours under the
// geodesic, chordal and first-angle (MSM) distances, k-NN, a
// projection-kernel SVM and Grassmann Discriminant Analysis. It is a tool
// over subspaces as package selection is over the model: it imports
// subspace, svd, kernels, linalg, score and folds (and internal/numerr),
// never model, dataset or anything with files, so a program can put
// baseline rows beside any method's per-split accuracies.
//
// # Samples
//
// A sample is a *subspace.Subspace: a D x d basis with orthonormal columns
// (an image set), or a single image as the 1-D subspace x/‖x‖
// (subspace.FromImage). All samples of a call have the same D; d may
// differ between samples (1 <= d <= min(D, svd.MaxSmall)): two samples are
// compared by their min(d_i, d_j) principal angles, so a single image
// against a set has one angle, θ_1, as in the engine. Distances over
// different numbers of angles are not on one scale: give the training
// parts one d. Bases must be finite and orthonormal to within OrthoTol
// (the tolerance model.Train accepts). Labels are any non-negative
// integers (used through their sorted distinct values).
//
// # The pair table
//
// Every baseline reads only the principal angles between samples, and
// cross-validation compares every sample with almost every other, so
// NewPairsFor computes them once for all splits and methods, for every
// pair of which at least one sample trains in some split (Evaluate passes
// the union of the training parts; a holdout of single test images never
// compares two test images): for the pair (i, j), M = X_iᵀ X_j
// (kernels.AtB), its singular values σ_1 >= ... >= σ_m, m = min(d_i, d_j)
// (svd.Batch, 32 pairs of one d per call; σ_1 = ‖M‖ when m = 1, M = x_iᵀX_j
// for a single image x_i computed by kernels.SparseAB over x_i's nonzero
// entries, AtB's bits; svd.Small on M padded with zeros to a square for
// other pairs of unequal d), θ_k =
// arccos(clamp(σ_k, 0, 1)) (kernels.Acos), as the engine computes them,
// and keeps
//
//   - Geodesic: Σ θ_k² (GRLGQ's distance with uniform relevances),
//   - Chordal: Σ sin²θ_k, as Σ (1 − σ_k)(1 + σ_k),
//   - FirstAngle: θ_1, the mutual subspace method's angle,
//   - the projection kernel ‖M‖²_F = Σ cos²θ_k (Hamm and Lee, ICML 2008),
//     summed over M's entries (no SVD needed).
//
// It stores them as a packed upper triangle for the t training samples
// and a dense block of the others against them: 32 bytes a pair,
// t(t+1)/2 + (n − t)·t pairs, at most MaxPairs (1 GiB; n = 8191 samples
// that all train). Rows of the table (a sample against the trainers) are
// shared out to goroutines by an atomic counter in sample order; a value
// depends only on its two samples, so the table is bit-identical for any
// number of workers. A row allocates nothing once its workspaces exist.
// Near θ = 0 an angle from arccos σ carries an absolute error of about
// √(8 d u) (u = 2^-53; 1e-7 at d = 8: σ is within 4 d u, svd's contract)
// and sin²θ one of about 8 d u: samples closer than that to a query are
// ranked by rounding.
//
// # Classifiers
//
// NN (Method{Kind: NN, K, Distance}) takes the K nearest training samples
// (equal distances ordered by sample index) and a majority vote; among
// classes with the most votes it takes the one whose nearest member ranks
// first, so K = 1 is the nearest neighbour and a tie of votes goes to the
// class of the nearer neighbours whatever the class numbers. K larger
// than the training part uses all of it.
//
// SVM is the soft-margin SVM (C-SVC) with the projection kernel divided by
// √(d_i d_j) (so K(X, X) = 1 and a value of C means the same for every
// subspace dimension; still a positive semidefinite kernel), one-vs-one: a binary problem per pair of classes present in
// the training part, and a vote (f > 0 votes for the lower class; ties of
// votes go to the larger sum of the class's decision values, then to the
// lower class). One-vs-one rather than one-vs-rest because each problem
// holds two classes only (faster, as the solver's cost grows faster than
// linearly in n), because with classes of a few sets one-vs-rest's problems
// are very unbalanced under one C, and because it is LIBSVM's rule, which
// most published SVM figures used (Hsu and Lin, IEEE TNN 2002, found the
// two as accurate). Each binary dual is solved by SMO with the
// second-order working-set selection of Fan, Chen and Lin (JMLR 2005,
// LIBSVM's WSS2, no shrinking: problems are small and the kernel is in
// memory: each goroutine copies the kernel of its problem, 8 n² bytes),
// stopping at a maximal KKT violation below Options.Tol (1e-3)
// or after Options.MaxIter pair updates (default max(100000, 100 n);
// Tuned.Unconverged counts those); ties in the selection go to the
// lowest index.
//
// GDA (Hamm and Lee, ICML 2008; not in DefaultMethods: its cost grows as
// N³ in the training part, MaxGDATrain bounds N) is kernel Fisher
// discriminant analysis with the same normalised kernel: the C − 1
// directions maximising between-class over regularised within-class
// scatter, αᵀK(V − 11ᵀ/N)Kα / αᵀ(K(I − V)K + σ²I)α with σ² =
// r·tr(K(I − V)K)/N, scaled to αᵀBα = 1, found through the C x C problem
// Gᵀ B⁻¹ G (the between-class matrix is G Gᵀ of rank C − 1; Cholesky of B
// and Jacobi rotations, written here), then the nearest training
// projection (Euclidean, ties to the lower position).
//
// The SVM's C and GDA's r are chosen per outer split by an inner
// stratified cross-validation on the split's training part only, over
// Options.CGrid (default 2^-10, 2^-8, ..., 2^10; each binary problem is
// warm-started from its solution for the previous C) and Options.GDAGrid
// (1e-4, 1e-3, ..., 100): the highest inner accuracy, ties to the more
// regularised model (the smaller C, the larger r). The inner folds are
// dealt by folds.Deal (the repository's one stratified rule) with the PCG
// stream 0x53564d4900000000 + split of Options.Seed, the same for both
// methods, K = Options.InnerFolds (5) lowered to the number of sets that
// can be validated; a class with a single training set is kept in every
// inner training part and never validated (it could not be learnt from
// its own fold), and a class smaller than K simply misses some validation
// folds. With fewer than two sets to validate, or a single class, there is
// no inner CV and the parameter is Options.DefaultC (1) or
// Options.GDADefault (1e-2). MethodResult.Tuned records which happened per
// split (Tuned.Note words it).
//
// # Evaluation
//
// Evaluate (or Pairs.Evaluate, to reuse a table made by NewPairs, or by
// NewPairsFor with every training sample of the splits) runs every method on
// every Split (the fields of folds.Fold, which selection.CVResult.Splits
// holds: baseline.Split(f) converts one, SplitsOf a list) and returns per-split accuracies, mean ± sd (sample sd, as
// selection reports GRLGQ's), and the time spent. Result.CompareTo takes
// another method's per-split accuracies (GRLGQ's on the same splits) and
// adds each row's paired differences (this − that), their standard error
// sd/√F and the Nadeau–Bengio corrected one sd·√(1/F + n_val/n_train),
// which accounts for the overlap of the training parts in repeated
// cross-validation. With one split (F = 1) standard deviations and errors
// are undefined: 0 in the structs, null in JSON, "n/a" in the tables.
// Result marshals to JSON (methods by name, durations in nanoseconds, no
// NaN); Summary and PerSplit make Tables, which write aligned text or
// CSV.
//
// # Separate training and test parts
//
// EvaluateHoldouts takes Holdouts instead: per split, training samples
// and test samples of their own (MNIST's protocol: about 1,250 training
// sets of 784 x 12 against 10,000 single test images, one holdout per run
// with the run's grouping). It never compares two test samples and never
// holds all the test pairs: per holdout it computes the training triangle
// (t(t+1)/2 pairs; their kernel only, the SVM's and GDA's input, and only
// for them), runs the inner CV and fits the SVM and GDA once (the fit kept
// as a model), then computes the test pairs a block at a time
// (about 2^20 pairs, 32 MiB, whatever the test part's size) and classifies
// each block with every method. A single image's pairs are computed
// against tiles of training bases of at most 256 KiB (they stay in L2
// while every image of the block runs over them; row by row, each image
// streamed every basis from memory). Where Evaluate applies too (a split
// whose validation samples train in no split) the results are the same,
// bit for bit: the same pairs from the same side, the same inner folds
// (split f's stream), the same models. A 1-D basis with stride 1 (one
// array for all images) takes an eighth of FromImage's memory, whose rows
// are padded to 8 values.
//
// # Errors
//
// Bad input is a returned error, never a panic: ErrData (wrapped) for a
// malformed sample, label, split or option, naming it; ErrNotFinite (the
// module's one sentinel) for NaN or ±Inf in a basis; ctx's error when ctx
// is cancelled (checked for every row of the table and every job).
//
// # Determinism and ownership
//
// Results depend only on the inputs and Options.Seed, never on
// Options.Workers or scheduling (only the wall times differ): every job
// writes to its own slot and sums run in a fixed order. Inputs are read,
// never modified or kept; a Pairs holds no reference to the samples and
// is read-only after NewPairs (safe for concurrent Evaluate calls); results
// own their memory.
package baseline
