// Package experiments reproduces the experiments of the GRLGQ paper
// (section 4) on the real data sets: MNIST (image classification from
// subspaces of random same-class image groups), Yale B 32x32 (faces, 4-fold
// cross-validation repeated 10 times) and ETH-80 (object image sets).
//
// Run(ctx, name, opt) runs one protocol and returns the GRLGQ accuracies
// (one per run or split) beside those of the untrained baseline: one
// class-wise PCA subspace per class (model.InitPCA on the same training
// subspaces, no training step), evaluated by the same rule. Every
// hyper-parameter of a protocol is either fixed a priori (the paper's
// values, documented in the protocol's file) or chosen on validation data
// carved from the training data; test data are touched only to report the
// final model's accuracy. No epoch or model is ever selected on test data:
// every protocol reports the model after its last epoch.
//
// Learning rates follow the model package's convention: the factor 2 of
// G = diag(2 λ_k θ_k / sin θ_k) is kept, as in the paper's equations and the
// authors' NumPy code, so the paper's η values apply unchanged. (Their
// PyTorch code, probably behind the image-set experiments, drops the 2: its
// η = 0.05 is η = 0.025 here. On ETH-80 validation η = 0.025 was no better
// than 0.05, see below, so 0.05 is kept.)
//
// Runs (splits, folds) are independent and are spread over opt.Workers
// goroutines, each training its own model single-threaded: with few
// prototypes, parallelism across runs beats parallelism across prototypes.
// Every run draws from its own PCG streams derived from opt.Seed and the run
// index, so results do not depend on the number of workers.
//
// The package reads files (it is a driver, like cmd/grlgq); the model
// package does not.
//
// # Results (seed 1, 2 cores shared with other work)
//
// MNIST with the hard-example sets (hardSpec; the wall includes
// classifying the training images before every epoch), Yale B trained on
// its single training images and their 1-pixel shifts (model.Continue of images
// from the class-PCA start, constant η, the final model the average of the
// last 30 epochs' models).
//
//	protocol  GRLGQ          baseline       paper          wall
//	mnist     96.55 ± 0.05   94.98 ± 0.09   94.78 ± 0.03   1 m 39 s
//	yale      96.31 ± 0.65   92.98 ± 0.98   96.50 ± 0.61   2 m 46 s
//	eth80     93.25 ± 2.06   83.25 ± 4.42   94.50 ± 1.87   7.3 s
//
// (Yale B with the earlier protocols: hard-example sets 94.07 ± 0.93 in
// 8 m 57 s; single images without the shifts, 80 epochs halving every 20,
// 95.83 ± 0.82 in 3 m 13 s; with the shifts, 40 epochs halving every 10,
// 96.21 ± 0.69 in 4 m 1 s.)
//
// Commands: grlgq repro mnist|yale|eth80 -dir /work/shared/data; or
// GRLGQ_REAL=mnist,yale,eth80 go test -run TestRealProtocol -v -timeout 1h
// ./internal/experiments (MNIST and Yale are opt-in there; the ETH-80
// protocol runs in CI as TestETH80Real).
//
// # How each choice was made
//
// MNIST (mnist.go). Fixed by the paper: d = 12, one prototype per class,
// 40 epochs, 3 runs, class-PCA initialisation. Chosen on validation: m = 48
// images per training set, on 50,000/10,000 images of the training file
// (TestTuneMNIST; the test file never read); then the hard-example sets,
// η = 5e-3, γ = 1e-6 and the step schedule (below), which replace the
// paper's constant η = 1e-4, γ = 1e-7. First study (study_test.go,
// TestStudyMNIST, same split): fresh random groupings every epoch, the
// sigmoid φ (β = 10, 20), η from 3e-4 to 3e-2, γ from 1e-6 to 1e-2, and
// training sets built from nearest neighbours (an anchor image and its m-1
// most cosine-similar images of its class, so that set errors follow
// single-image errors: 96-98% of such sets are classified correctly,
// against 100% of random groups). Every one of these settings that moves
// the prototypes away from the class-PCA start lowers the single-image
// validation accuracy (e.g. m = 12, η = 3e-3: 94.08% → 92.51% in 10
// epochs; with β = 20: 93.41%); the best change was +0.07 points
// (neighbour groups, m = 24, η = 3e-4: 94.33% → 94.40%).
//
// Hard-example study (hard_test.go, TestStudyHardMNIST; same split, 10,000
// validation images, class-PCA start 94.39%; see hardSpec): before every
// epoch the model classifies the 50,000 training images by θ_1, and those
// misclassified or with a relative θ_1² margin below a threshold are cut
// into extra training sets of m images of their class, grouped by the
// class that takes them, each set added c times to the 1,040 random
// groups of 48. Validation accuracy after 40 epochs (20 where marked):
//
//	constant rate     margin 0.05, c = 1, η = 1e-3  94.44 (10)   η = 3e-3 94.39 (20)   η = 1e-2 94.03 (20)
//	                  margin 0.05, c = 4, η = 3e-3  95.40 (20)   η = 1e-2 95.63        η = 3e-2 95.57
//	                  margin 0 (errors only), c = 4 95.00 (20)   η = 1e-2 95.11 (20)
//	                  hard sets of m = 24, c = 4    95.07 (20)   η = 1e-2 94.96 (20)
//	                  each hard image + its 11 most similar hard images, c = 1: η = 3e-3 95.31 (20), 1e-2 94.81 (20)
//	                  margin 0.05, c = 8, η = 1e-2  96.19        η = 3e-2 diverges (54%)
//	                  margin 0.1,  c = 4, η = 1e-2  95.83        c = 8: diverges (80%)
//	step schedule     margin 0.05, c = 8, η = 1e-2  96.03        η = 2e-2 95.85 (83% at epoch 10)
//	(halve every 10)  margin 0.05, c = 16, η = 1e-2 95.88 (77% at epoch 10)
//	                  margin 0.1,  c = 4, η = 5e-3  95.77        η = 1e-2 95.80
//	                  margin 0.2,  c = 4, η = 5e-3  95.69        η = 1e-2 95.75
//	                  margin 0.2,  c = 2, η = 5e-3  95.26        η = 1e-2 95.39
//	                  margin 0.1,  c = 8, η = 5e-3  96.26        η = 1e-2 96.39   η = 2e-2 95.92 (75% at epoch 10)
//	  variants of the last at η = 5e-3: λ fixed (GLGQ) 96.23; γ = 1e-4 96.51 (at η = 1e-2: 91.31,
//	  diverged); hard sets rebuilt every 5 epochs 95.86 (89% at epoch 20); hard sets of m = 24 95.86;
//	  sigmoid β = 10 96.78 (at η = 1e-2: 73% at epoch 10, 96.42 at 40; with γ = 1e-4: 97.16 after
//	  89% at epoch 10)
//
// The hard sets feed back on themselves (a model that drifts has more
// hard images, hence more hard sets), and too strong a setting diverges
// for tens of epochs before the step schedule recovers it. The adopted
// setting is therefore the best one whose doubled η still trains without
// such a fall: margin 0.1, c = 8, m = d = 12, η = 5e-3 (doubling it gives
// 96.39%, smoothly), γ = 1e-6 and the step schedule: 94.39% → 96.26%
// (+187 of 10,000 validation images). (That rule was stated after the
// divergences were seen, before any test run.) On a second, independent
// split of the training file (stream VALI+1, X_VAL=1): 94.25% → 96.10%
// (η = 1e-2: 96.22%; γ = 1e-4: 96.25%). Through the protocol's code
// (TestTuneMNIST, whose model seed differs): 96.31%. Test accuracy was
// computed once, for the table.

// Yale B (yale.go). Fixed by the paper: 20x20 bicubic, d = 7, 4-fold CV
// repeated 10 times, γ = 1e-5, 200 epochs, one prototype per class (the
// paper's parameter count, 106,407 = 38·400·7 + 7). Chosen on an inner
// split of the training part of outer fold 1 of repetition 1 (2 folds
// train, 1 validates; TestTuneYale): m = 14, 5 groupings (and, before the
// hard sets, η = 1e-3). Later checks on the same inner split
// (TestStudyYale): sigmoid β = 5 with η = 1e-3: 90.67% (identity 90.67%),
// with η = 1e-2: 91.17%; fresh groupings every epoch: 90.50% (baseline
// 90.17%); and on the inner splits of outer folds 2-4 (validation = folds
// 4, 3, 2 of repetition 1), baseline → GRLGQ after 200 epochs: η = 1e-3:
// 90.67 → 90.33, 91.33 → 91.33, 89.24 → 89.24; η = 1e-2 with β = 5:
// unchanged on all three; η = 1e-4: 90.67 → 91.00, 91.33 → 91.50,
// 89.24 → 89.24. Differences of 1-3 validation images, so nothing was
// changed then (GRLGQ 92.82% ± 1.02 against the baseline's 92.98% on
// test).
//
// Hard-example study (TestStudyHardYale with X_FOLDS=0,1,2,3: the inner
// splits of outer folds 1-4 of repetition 1, 600, 600, 600 and 604
// validation images, the outer test folds untouched; the same hard sets
// as MNIST's, see hardSpec). Mean inner validation accuracy after 200
// epochs (class-PCA start 90.35%: 90.17, 90.67, 91.33, 89.24):
//
//	hard sets m = 7, margin 0.1, c = 8, η = 1e-3, step    90.73
//	margin 0.3, c = 8, η = 1e-3, constant                 91.06
//	margin 0.3, c = 8, η = 1e-2, step                     91.39 (91.83, 91.50, 91.67, 90.56)  adopted
//	  same without hard sets (control)                    90.56
//	  c = 16 91.39; η = 2e-2 91.31; at least 7 images per class 91.43;
//	  each hard image + its 6 most similar 91.27; hard sets of m = 14 90.85;
//	  sigmoid β = 5 91.56; halving every 20 epochs 91.27
//	margin 0.5, c = 4, η = 1e-2, step                     91.10   c = 8: 91.52
//	margin 0.2, c = 8, η = 1e-2, constant                 90.35 (91.06 at 50 epochs, then drifts)
//	margin 0.3, c = 8, η = 3e-3, constant                 90.69 (91.35 at 50 epochs, then drifts)
//
// Every step-schedule setting with margin >= 0.3 and c >= 8 lies on a
// plateau of 91.3-91.6% (within 5 of 2,404 images of each other); the
// first one tried there was adopted (m = d, c = 8 and the step schedule,
// as for MNIST, margin 0.3, η = 1e-2, the paper's value): +25 of 2,404
// validation images over the start, every split gaining (10, 5, 2, 8),
// where the same η and schedule without hard sets gain 5. Only about 1 in
// 30 training images is hard (the class subspaces fit their own training
// images well), so a hard set is mostly a class's 7 hardest images.
// Through the protocol's code (TestTuneYale, outer fold 1; its model seed
// differs): 90.17% → 91.67%. The paper's 96.5% stays far off.
//
// Further variants of the adopted setting (same four inner splits, 2,404
// validation images, mean after 200 epochs; adopted 91.39):
//
//	localized relevances (one λ per prototype)            91.31
//	min = 14 (each class's 14 hardest images always)      91.35
//	hard sets of m = 10 (between d and 2d)                91.18
//	γ = 1e-4                                              90.85
//	10 random groupings instead of 5                      91.18
//	random groups of m = 7 (start 89.35)                  91.06
//	sigmoid β = 5 with c = 16                             91.27
//
// None is above the plateau (the best earlier variant, β = 5, is 4 images
// over the adopted setting). Longer schedules change nothing: with η
// halved every 10 epochs every run above is frozen from epoch 100 on
// (identical accuracies at 100, 150 and 200), and slower halving (every
// 20 epochs) gave 91.27.
//
// Single-image training (adopted; TestStudyImageLVQYale, a plain Go
// prototype of the step, then TestStudyImagesYale through
// model.Continue of images; the same four inner splits). The test rule
// classifies single images by θ_1, and the training images can be the
// training samples themselves: 1-D subspaces, d = θ_1², the rank-one step
// of model.Trainer.Step on an image. Mean inner validation accuracy (class-PCA start of
// the sets, 90.35%):
//
//	η = 1e-2 constant: 92.22 (10 epochs), 92.64 (20), 92.89 (40), 92.85 (50)
//	η = 3e-3 constant: 92.01 (20), 92.39 (40), 92.80 (100)
//	η = 3e-2 constant: 88.1-89.8 (unstable); η = 0.1: 67-78
//	sigmoid β = 5, η = 1e-2: 92.51-92.72; β = 5, η = 3e-2: 90.4-91.3
//	from the hard-set model (91.39) instead, η = 1e-2: 92.93 (60 epochs)
//	mirrored training images added: 92.59 (60)
//	2 prototypes per class from k-subspace clustering: 91.10 (60)
//	step schedule, η halved every 10 epochs: η = 1e-2 92.47, 2e-2 92.76 (80)
//	halved every 20 epochs: η = 1e-2 92.80 (80; 92.68, 92.80, 92.64 at 20, 40, 60)  adopted
//	                        η = 2e-2 92.80 (80)
//	start at the class PCA of the images themselves (model.Init of images,
//	91.02%): 92.39-92.68 with the same schedules
//
// Every stable setting lies on a plateau of 92.4-92.9% (+50 to +60 of
// 2,404 validation images over the start, against +25 for the hard sets);
// the paper's η = 1e-2 with the step schedule of the other protocols,
// halving every 20 epochs, for 80 epochs, was adopted from it, starting
// from the protocol's class-PCA subspace as before. The training images
// are fitted to about 99.3%. Test accuracy was computed once, for the
// table: 95.83 ± 0.82.
//
// Shifted training images (adopted after that; the same study with
// X_SHIFTS, X_SHIFT32, and a second repetition's four inner splits,
// X_REP=1, for replication). The training images fit to 99%, so more
// training images should help; aligned faces moved by a pixel are
// plausible new images. Mean inner validation accuracy, repetition 1 and
// repetition 2 (class-PCA start 90.35%, 89.52%):
//
//	no shifts, 80 epochs halving every 20 (control)      92.80  92.26
//	the training set 5 times, unshifted (step control)   92.97
//	+ shifts by 1 pixel left/right/up/down, same schedule 93.59  92.93  (6 of 8 splits gain)
//	+ the same, 40 epochs halving every 10               93.59  92.85  adopted
//	  η = 5e-3                                           93.30  92.43
//	  η = 2e-2                                           93.39  92.85
//	  shifts by 1 pixel at 32x32 before resizing          93.76  92.72
//	  shifts by 1 and 2 pixels                           92.30
//	  shifts by 2 pixels                                 92.43
//	  the 4 diagonal shifts as well                      91.10 (η = 5e-3: 92.89; 2.5e-3: 93.05)
//	  2 prototypes per class (bootstrap PCA start)       93.59  92.85  (the second never wins)
//	  + copies with pixel gamma 0.8 and 1.25 (X_GAMMAS)   93.43  92.76
//
// The 1-pixel shifts gain 0.6-0.8 points over the controls on both
// repetitions (+35 of 4,808 validation images); larger or diagonal shifts
// lose, so the augmentation is kept minimal. 40 epochs halving every 10
// match 80 halving every 20 at half the cost. Test accuracy, computed once
// for the table: 96.21 ± 0.69. (On MNIST the same single-image training lowers
// the validation accuracy, 94.39% → 93.5% after 40 epochs at η = 1e-2 or
// 3e-3 with the step schedule; TestStudyImagesMNIST. There the training
// images are fitted only to 94%, and the hard-example sets stay.)
//
// Averaging and small warps on top of the adopted setting (the same study,
// both repetitions' inner splits; TestStudyImagesYale with X_AVG_FROM,
// X_SEEDS, X_ROT, X_SCALE, X_SUBPX):
//
//	GRLGQ_TUNE=1 X_PAR=1 X_REP=0 (and 1) X_ETA=1e-2 X_EPOCHS=40 X_EVERY=10 X_SHIFTS=1 X_SCHED=step X_STEP=10 \
//	  go test ./internal/experiments -run 'TestStudyImagesYale$' -v
//	  (the adopted setting; the variants add or change the knobs named below)
//
// Tail averaging (SWA) is model.Average of the snapshots after every epoch
// of the tail (X_AVG_FROM=e: epochs e+1 ... 40); seed averaging the
// model.Average of the final models of cfg.Seed = 1 ... K (X_SEEDS=K; the
// same start, other permutations); the warps are extra copies of every
// training image, beside its four 1-pixel shifts, resampled at 32x32 with
// Catmull-Rom about the image centre (edges replicated, as
// dataset.Shifted) and then resized to 20x20 like the data set (warp32).
// Mean inner validation accuracy, repetition 1 and 2, gain over the
// adopted setting, and time against it (training images per epoch, or
// study wall time on the shared machine):
//
//	adopted (control; epoch by epoch through the same code: identical)    93.59  92.85                 1
//	SWA, η halved every 10 (X_AVG_FROM=20)                                93.55  92.80  −0.04 −0.05    1 (1.7 study)
//	SWA, constant η = 1e-2, epochs 21-40 (X_SCHED unset)                  93.72  93.05  +0.13 +0.20    1 (1.7 study)
//	  final iterate without averaging                                    92.72  92.43
//	  epochs 11-40 (X_AVG_FROM=10)                                       93.84  93.05  +0.25 +0.20
//	  80 epochs, epochs 41-80                                            93.30  92.93  −0.29 +0.08    2
//	  + scalings 0.95 and 1.05                                           93.47  92.97  −0.12 +0.12    1.4
//	SWA, constant η = 5e-3, epochs 21-40                                  93.72  92.97  +0.13 +0.12
//	  final iterate (constant η = 5e-3, no averaging)                    93.72  93.09  +0.13 +0.24
//	  epochs 11-40                                                       93.51  92.72  −0.08 −0.13
//	SWA, constant η = 2e-2, epochs 21-40 (final iterate 89.98, 90.35)     92.93  92.34  −0.66 −0.51
//	3 seeds averaged (X_SEEDS=3, adopted schedule)                        93.72  92.72  +0.13 −0.13    3
//	  the 3 seeds alone                                93.59 93.68 93.76  92.85 92.60 92.80
//	3 seeds' SWA models averaged (constant η = 1e-2, epochs 21-40)        93.80  93.01  +0.21 +0.16    3
//	  epochs 11-40                                                       93.72  92.97  +0.13 +0.12    3
//	rotations by ±3° (X_ROT=3)                                            93.60  92.64  +0.01 −0.21    1.4
//	rotations by ±6° (X_ROT=6)                                            93.18  92.22  −0.41 −0.63    1.4
//	scalings by 0.95 and 1.05 (X_SCALE=0.95,1.05)                         93.80  92.80  +0.21 −0.05    1.4
//	±0.5-pixel shifts at 32x32 beside the 1-pixel ones (X_SUBPX=0.5)      93.97  92.72  +0.38 −0.13    1.8
//	  instead of the 1-pixel ones (X_SHIFTS unset)                       93.14  92.47  −0.45 −0.38    1
//
// Paired by seed (X_SEEDS=3 logs every seed alone; the adopted setting's
// seeds are the line above), seeds 1, 2, 3:
//
//	SWA, constant η = 1e-2, epochs 21-40   93.72 93.84 93.68  93.05 93.14 93.09   gain +0.07 (+0.13 +0.16 −0.08)  +0.34 (+0.20 +0.54 +0.29)
//	SWA, constant η = 1e-2, epochs 11-40   93.84 93.72 93.80  93.05 93.18 92.97   gain +0.11 (+0.25 +0.04 +0.04)  +0.32 (+0.20 +0.58 +0.17)
//	constant η = 5e-3, final iterate       93.72 93.55 93.76  93.09 92.51 93.14   gain  0.00 (+0.13 −0.13 0.00)   +0.16 (+0.24 −0.09 +0.34)
//
// No variant gains 0.3 points on both repetitions. Rotations lose (±6°
// clearly), and the scalings and the half-pixel shifts beside the 1-pixel
// ones split between the repetitions (+0.21/−0.05, +0.38/−0.13); the
// half-pixel shifts instead of the 1-pixel ones lose on both, so the
// whole-pixel step is what helps. With the adopted schedule the tail is
// frozen (η ≤ 1.25e-3 after epoch 30) and averaging it changes nothing;
// averaging the final models of 3 seeds neither (+0.13/−0.13). The only
// gains on both repetitions come from a constant η (1e-2 with tail
// averaging, or 5e-3 alone), whose final iterates drift (η = 1e-2: 92.72,
// 92.43 at 40 epochs, 91.8, 91.7 at 80) and whose averages land about
// where the step schedule does: paired over 3 seeds +0.07 to +0.11 on
// repetition 1 (2-3 of 2,404 images) and +0.16 to +0.34 on repetition 2,
// where the adopted setting's own seed-to-seed spread is 0.17 and 0.25
// points. Not beyond noise on repetition 1, so nothing was adopted.
// (The study trains epoch by epoch for the averages, hence its 1.7-2x
// wall time; averaging in the protocol would cost one model copy per
// epoch and one Average.) No test fold was evaluated for this study.
//
// Replication, then adoption (the inner splits of repetitions 3-8 as well,
// X_REP=2 ... 7, with the model code of this commit: the exact rank-one
// rotation of an image step, which leaves repetitions 1 and 2 exactly as
// above). The one candidate gaining on both repetitions, a constant
// η = 1e-2 with the average of the models after epochs 11-40, against the
// adopted step schedule, seed 1; mean inner validation accuracy:
//
//	repetition       1      2      3      4      5      6      7      8
//	step schedule  93.59  92.85  93.22  93.97  93.59  94.76  93.97  93.92
//	tail average   93.84  93.05  93.22  94.18  93.43  95.05  94.01  94.21
//	gain           +0.25  +0.20   0.00  +0.21  −0.16  +0.29  +0.04  +0.29
//
// Mean gain +0.14 ± 0.16 points (SD over the 8 repetitions; paired t 2.4).
// The rule, written down after repetitions 1-4 and before 5-8 were run:
// adopt if the mean gain over the 8 repetitions is at least +0.10 with
// paired t >= 2; repetitions 5-8 alone gave +0.12. Adopted
// (yaleSpec.AverageLast = 30, i.e. model.TrainConfig.AverageLast: the models
// after epochs 11-40 averaged by model.Average, 26 ms for 30 snapshots of
// 38 prototypes; bit for bit what the study's epoch-by-epoch averaging
// gives). Test accuracy, computed once for the table: 96.31 ±
// 0.65 (the step schedule gave 96.21 ± 0.69), wall 2 m 46 s.

// ETH-80 (eth80.go). Fixed by the paper: gray 20x20, one object = one set,
// d = 5, 5 training objects per category, 10 random splits, η = 0.05,
// γ = 1e-4, prototypes from random training sets, one prototype per class
// (the paper's parameter count, 16,005 = 8·400·5 + 5). Chosen on
// validation: the sigmoid φ with β = 5, 4 extra training sets per training
// object (subspaces of 20 random views of its 41) and 160 epochs; later
// the hard view subsets with 80 epochs (below). The
// validation (TestStudyETH80 with X_INNER=1): in each of the protocol's 10
// splits, leave-one-object-per-category-out over the 5 training objects
// (5 folds, 4 objects per category train, 8 sets validate), the mean
// inner accuracy over the splits at 10, 20, 40, 80, 160, 300, 600 and 1000
// epochs. Best of each configuration (at epochs):
//
//	paper setting (identity φ)  88.25 (600)    η = 0.025  87.50 (600)
//	η = 0.1                     88.00 (300)    η = 0.2    88.25 (300)
//	class-PCA init              88.25 (300)    γ = 1e-3   86.50 (80)
//	anneal τ = 50               85.25 (600)    local λ    89.00 (1000)
//	sigmoid β = 3               90.50 (1000)   β = 5      90.75 (1000)
//	β = 10                      89.75 (80)     β = 5, η = 0.1  89.75 (300)
//	β = 5, class-PCA init       90.00 (1000)   mirrored views as objects 88.50 (160)
//	2 prototypes per class      89.00 (300)    3 per class     90.25 (600)
//	view subsets (4 x 20)       91.50 (300)    subsets + β = 5 91.25 (160)
//
// Subsets with β = 5 was chosen for being the best region (90.25-91.25
// from 10 to 1000 epochs, flatter than subsets alone), at 160 epochs, its
// best; more prototypes per class were not adopted (no gain beyond noise,
// and the paper's count is one). The outer test objects of a split never
// served as validation for that split; but the study pools the 10 splits,
// and an object that validates in one split is a test object of another,
// so the pooled choice is not strictly nested (a strictly nested variant,
// the per-split epoch selection of eth80Spec.EpochGrid, chose too few
// epochs: 87.25% with the previous setting). Test accuracy of the final
// setting was computed once, for the table.
//
// Later check (same study, current model code): 8 instead of 4 view
// subsets per training object, with β = 5: 91.75, 92.00, 92.50, 91.75,
// 92.25, 91.50, 91.75, 90.75 at 10 ... 1000 epochs, against 90.25, 90.25,
// 90.75, 91.00, 91.25, 91.00, 91.00, 90.50 for the adopted 4 subsets
// (rerun: the table's numbers). +1.0 point at 160 epochs is 4 of the 400
// pooled validation sets, within noise, and the extra sets would make the
// CI test (TestETH80Real) nearly twice as long, so 4 subsets stay.
//
// Hard view subsets (TestStudyHardETH80, the same inner study; first not
// adopted, then adopted after the larger study below), the set-level analogue of the hard images: every training
// object also gets a pool of P random 20-view subsets (drawn once per
// inner fold); before every epoch the current model classifies the pool,
// and each subset it misclassifies or separates with a relative margin
// μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) (training-cost distances) below a threshold
// enters that epoch c times, besides the adopted training sets (full sets,
// 4 subsets, β = 5). Mean inner accuracy at 10, 20, 40, 80, 160, 300
// epochs:
//
//	adopted setting (control)          90.25 90.25 90.75 91.00 91.25 91.00
//	P = 16, margin 0.1, c = 1          91.50 90.75 91.75 91.25 91.75 91.00  (about 1 hard subset per epoch)
//	P = 16, margin 0.3, c = 2          92.50 93.00 93.50 92.50 93.00 90.50  (8-18 per epoch)
//	  same, other pool draws           92.50 93.50 93.75 93.75 93.00 90.75
//	P = 16, margin 0.5, c = 2          93.25 92.75 92.75 91.25 90.50 91.00
//	P = 16, margin 0.3, c = 4          92.75 93.50 94.00 93.75 91.25 90.75
//	P = 32, margin 0.3, c = 2          91.75 93.25 93.00 93.25 91.00 90.75
//	P = 8 redrawn every epoch, margin 0.2, c = 2
//	                                   92.25 91.50 91.75 92.75 92.00 90.50  (6 min; option since removed)
//
// Every setting lifts 10-80 epochs by 1.5-3 points, but the stronger ones
// (c = 4, P = 32, margin 0.5) fall back to the control by 160 epochs and
// all of them by 300. The best at the protocol's 160 epochs (P = 16,
// margin 0.3, c = 2: +7 of 400 validation sets) was then replicated with
// other draws of the 4 base view subsets (X_ASEED; the control's own
// spread between draws is a point), control → hard subsets at 10, 20,
// 40, 80, 160 epochs:
//
//	X_ASEED=1   89.50 92.25 92.00 90.50 91.00  →  92.00 91.00 92.25 91.00 91.50
//	X_ASEED=2   89.75 91.75 92.00 91.50 91.00  →  90.75 92.50 92.00 94.25 94.25
//	X_ASEED=3   89.75 90.50 90.25 90.50 92.00  →  91.25 92.00 92.25 92.75 92.25
//
// At 160 epochs the gain over the four draws is +1.75, +0.5, +3.25 and
// +0.25 points (mean +1.4, 6 of 400 validation sets; the three independent
// replicates +1.3), never negative from 40 epochs on, but not clearly
// beyond noise (paired t about 2 with 3 degrees of freedom), fragile in
// its neighbours (stronger settings lose it by 160 epochs) and about a
// third slower. (Not adopting it was decided before the last replicate
// was run.) Shifted views, the augmentation that helped Yale B
// (X_SHIFTSETS=1: every training object also as its 4 sets of views
// shifted by a pixel, besides the adopted sets), gave 89.75 90.25 91.75
// 91.25 91.25 90.75 at 10 ... 300 epochs against the control's 90.25
// 90.25 90.75 91.00 91.25 91.00: nothing.
//
// The larger replicate study of the hard view subsets (adopted; the same
// inner study over 16 paired draws X_ASEED = X_PSEED = 0..15 of the base
// subsets and the pool, control and candidate on the same draw, then 4
// more draws with other model seeds, X_MSEED = 1..4). Paired gain of
// P = 16, margin 0.3, c = 2, constant η, over the control, mean ± SD over
// the 16 draws, at 10, 20, 40, 80, 160 epochs:
//
//	hard subsets vs control at the same epoch    +2.06 ± 1.42  +1.80 ± 1.19  +1.52 ± 1.14  +1.69 ± 1.07  +1.31 ± 0.87
//	hard subsets vs control at 160 epochs        +0.06 ± 1.27  +0.72 ± 0.75  +0.98 ± 0.96  +1.39 ± 0.63  +1.31 ± 0.87
//	  (at 80 epochs every draw gains at least +0.75; the means are 92.88% against 91.48%)
//	other model seeds, hard subsets at 80 vs control at 160: +3.25, +0.75, +1.25, +2.00
//	+ step schedule (η, γ halved every 40 epochs), 7 draws:   +1.57 (80), +1.14 (160)
//	+ 8 base subsets instead of 4, 4 draws:                  +1.88 (80), −0.19 (160)
//	pool subsets of 10 views / 30 views, 4 draws:           +1.19 / +0.38 (80), −0.06 / +0.62 (160)
//	+ base subsets of 10 views, 8 draws:                     +1.94 (80), +0.59 (160)
//	control with 8 base subsets (the earlier +1.0), 4 draws: +1.44 (80), −0.06 (160)
//	control with the step schedule, 2 draws:                 0.00 (80), −0.38 (160)
//
// Adopted: the hard subsets (P = 16 of 20 views, margin 0.3, c = 2) with
// everything else as before, and 80 epochs instead of 160: the gain over
// the previous protocol is +1.39 ± 0.63 points (about 5-6 of the 400
// validation sets, paired t about 9 over the 16 draws), chosen after draws
// 0-7 and confirmed on the 8 later draws and the 4 model seeds (all
// positive). The spread covers only training randomness: every draw
// validates on the same objects. Test accuracy, computed once for the
// table: 93.25 ± 2.06 (the previous protocol 93.00 ± 2.84): +0.25, of the
// order of the test run's own standard error (about 0.7-0.9 points over 10
// splits of 40 test objects), so the validation gain is neither confirmed
// nor refuted by it.
//
// Model averaging (TestStudyHardETH80 with X_SWA and X_SEEDAVG; not
// adopted). Tail averaging (SWA) of one run: model.Average of the models
// after every 4th epoch of a window of the run at the constant η (every
// epoch was too slow to study: model.Average of n models with 8
// prototypes of 400 x 5 took 0.03 s for n = 10, 0.24 s for 20, 1.7 s for
// 40 and 16 s for 80, the SVD of the 400 x 5n stack). Seed averaging:
// 4 models that differ only in the model seed (X_MSEED + j; the same
// training sets, base subsets and pool) averaged into one model of the
// same size, at 40, 60, 80 epochs, and the average of their 4 tail
// averages. All paired with the adopted setting at 80 epochs (the control)
// on the same draws X_ASEED = X_PSEED (one 120-epoch run per draw and fold
// gives the control at 80 epochs, the plain models and the tail averages;
// 3 more 80-epoch runs the seed averages). Mean inner accuracy over the
// draws, paired gain over the control ± SD over the draws, and time
// (training it needs plus averaging, evaluation excluded) relative to the
// control; "mean of the 4" is the mean accuracy of the 4 seeds' models
// taken singly (the time of one):
//
//	                             draws 0-7           draws 8-15          all 16              time
//	plain, 40 epochs             92.53 -0.50 ± 0.89  92.41 -0.31 ± 0.76  92.47 -0.41 ± 0.81  0.56
//	plain, 60 epochs             92.53 -0.50 ± 0.87  92.62 -0.09 ± 0.42  92.58 -0.30 ± 0.69  0.78
//	control: plain, 80 epochs    93.03               92.72               92.88               1.00
//	plain, 120 epochs            93.12 +0.09 ± 0.64  93.09 +0.38 ± 0.69  93.11 +0.23 ± 0.66  1.43
//	tail average 41-80           92.81 -0.22 ± 0.60  92.75 +0.03 ± 0.56  92.78 -0.09 ± 0.58  1.02
//	tail average 61-80           92.81 -0.22 ± 0.53  92.94 +0.22 ± 0.45  92.88 +0.00 ± 0.52  1.00
//	tail average 41-120          93.09 +0.06 ± 0.66  92.94 +0.22 ± 0.39  93.02 +0.14 ± 0.53  1.57
//	tail average 61-120          93.19 +0.16 ± 0.52  92.88 +0.16 ± 0.52  93.03 +0.16 ± 0.50  1.49
//	tail average 81-120          93.25 +0.22 ± 0.60  92.97 +0.25 ± 0.63  93.11 +0.23 ± 0.59  1.45
//	4 seeds averaged, 40 ep.     92.69 -0.34 ± 0.78  92.81 +0.09 ± 0.82  92.75 -0.12 ± 0.81  2.22
//	(mean of the 4, 40 ep.)      92.46 -0.57 ± 0.61  92.60 -0.12 ± 0.56  92.53 -0.34 ± 0.61  0.55
//	4 seeds averaged, 60 ep.     92.91 -0.12 ± 0.73  93.09 +0.38 ± 0.55  93.00 +0.12 ± 0.68  3.12
//	(mean of the 4, 60 ep.)      92.54 -0.49 ± 0.52  92.88 +0.16 ± 0.42  92.71 -0.17 ± 0.57  0.78
//	4 seeds averaged, 80 ep.     93.03 +0.00 ± 0.42  93.16 +0.44 ± 0.75  93.09 +0.22 ± 0.63  4.01
//	(mean of the 4, 80 ep.)      92.75 -0.28 ± 0.42  92.91 +0.19 ± 0.42  92.83 -0.05 ± 0.47  1.00
//	4 seeds x tail 41-80         93.06 +0.03 ± 0.53  93.09 +0.38 ± 0.71  93.08 +0.20 ± 0.63  4.08
//	4 seeds x tail 61-80         92.97 -0.06 ± 0.35  93.22 +0.50 ± 0.57  93.09 +0.22 ± 0.54  4.01
//
//	for i in 0 ... 15:
//	GRLGQ_TUNE=1 X_SIGMOID=5 X_POOL=16 X_HMARGIN=0.3 X_HCOPIES=2 X_PAR=1 X_ASEED=$i X_PSEED=$i X_CPS=40,60,80,120 X_CTRL=80 \
//	  X_SWA=40:80,60:80,40:120,60:120,80:120 X_SWAEVERY=4 X_SEEDAVG=4 X_SEEDEPOCHS=80 go test -run TestStudyHardETH80 -v ./internal/experiments
//
// The 4 seeds' prototypes of a class are close, so averaging them is
// meaningful: at 80 epochs the mean pairwise Σ sin² θ (of at most 5)
// between them is 0.08 (pear), 0.16 (horse), 0.19 (cup), 0.21 (tomato),
// 0.27 (apple), 0.29 (cow), 0.30 (dog), 0.48 (car; at most 0.53 in a
// draw), against 3.0-3.4 from a prototype to the nearest one of another
// class. No variant was a winner on draws 0-7 (the best, the tail average
// of epochs 81-120, +0.22 ± 0.60, paired t 1.0: one validation set in 400
// for 1.45 times the time), so nothing was up for confirmation; draws
// 8-15, run with every variant anyway, lift the seed averages (+0.44 and
// +0.50 after +0.00 and −0.06 on draws 0-7), but over the 16 draws no
// variant gains more than +0.23 over the control (under one validation
// set, paired t at most 1.6, with 13 variants compared), the tail averages are
// no better than the plain model at the end of their window (81-120 minus
// plain 120: +0.00 ± 0.37; 41-80 minus plain 80: −0.09 ± 0.58) and plain
// training to 120 epochs gains as much as any average. The seed average
// is +0.27 ± 0.46 above the mean of its own 4 models (about one
// validation set) for 4 times the training. The protocol stays.
//
// More prototypes per class with the adopted setting (X_PPC; the rule,
// written before the runs: adopt k prototypes per class only if the mean
// paired gain at 80 epochs is at least +0.5 on draws 0-7 and on all 16
// with paired t >= 3). Mean inner validation accuracy at 80 epochs, draws
// 0-7, against the control's (plain@80 of the averaging study, the same
// draws):
//
//	draw                 0      1      2      3      4      5      6      7
//	control (1 per class) 92.50  93.75  91.75  94.50  92.25  93.75  93.50  92.25
//	2 per class          91.25  91.25  91.25  91.75  (stopped: −1.75 ± 1.0 over draws 0-3)
//	3 per class          93.75  92.50  93.50  92.50  92.00  91.00  91.25  92.25   −0.69 ± 1.64
//
// Neither gains; one prototype per class (the paper's count) stays.
//
// # What the authors' test-epoch selection adds (diagnosis)
//
// The authors' code keeps, per run, the epoch of best TEST accuracy. To
// measure what that adds, two tests score the adopted protocols both ways
// (GRLGQ_TUNE=1; they read test accuracies, were run after every choice
// above was fixed, and decided nothing):
//
//	TestDiagnoseETH80Selection, 100 splits (the first 10 the protocol's):
//	  splits       1-10   11-20  21-30  31-40  41-50  51-60  61-70  71-80  81-90  91-100   all 100
//	  last epoch   93.25  93.75  92.50  91.50  92.00  93.00  93.00  93.50  90.75  91.75     92.50 (SE 0.40)
//	  best epoch   96.25  95.50  95.50  95.50  96.25  95.50  96.50  97.25  95.75  94.50     95.85
//	  (the best single epoch for all 100 splits: 92.68, epoch 73)
//	TestDiagnoseYaleSelection, the protocol's 10 repetitions x 4 folds:
//	  protocol (average of the last 30 epochs' models)  96.31
//	  plain model after epoch 40 (constant η)           95.55
//	  best test epoch per fold, plain models             96.64
//
// Scored as the authors score, every block of 10 ETH-80 splits reaches the
// paper's 94.5 (94.50-97.25) and Yale B passes 96.50; scored honestly, the
// protocols' expected accuracies are 92.50 ± 0.40 (ETH-80 over 100 splits;
// seed 1's first 10 splits, the table's, are 93.25) and 96.31 ± 0.65. The
// per-split spread on ETH-80 is 4 points (1 test object = 2.5), which is
// what picking a split's best epoch exploits: +3.35 points on average.
//
// # Why model/eth80_test.go measured 94.3% and the protocol 87.25%
//
// Not the preprocessing: model's test decodes to 8-bit gray and resizes in
// 8 bits, package imageset in 16 bits; swapping them changes the mean test
// accuracy by at most 0.75 points. Not the learning rate (both use the same
// convention and η). The difference is (1) the splits: model's test uses
// rand.NewPCG(s, 1) per split and the model seed s, the protocol its own
// streams of the seed; with the same setting (identity φ, 300 epochs)
// model's splits give 94.25% ± 3.34 and the protocol's 89.25% ± 3.13 (the
// per-split standard deviation is about 4 points, 1 object = 2.5 points);
// and (2) the protocol's per-split epoch selection, which picked 20 epochs
// in 4 of 10 splits (87.25% instead of 89.25% with 300 epochs). These test
// accuracies were looked at for this diagnosis only (TestStudyETH80 with
// X_TEST=1); they decided nothing.
package experiments
