// Command grlgq trains, evaluates and explains GRLGQ models (Generalized
// Relevance Learning Grassmann Quantization: image sets become subspaces,
// classified by labelled prototype subspaces with learned relevances of the
// principal angles).
//
// Usage:
//
//	grlgq demo    [-json]                        train and test on the embedded UCI digits
//	grlgq train   -data SPEC -o MODEL [flags]    train a model
//	grlgq train   -tune -data SPEC -o MODEL      choose the settings by cross-validation, then train
//	grlgq cv      -data SPEC [-folds K] [flags]  k-fold cross-validation accuracy of a configuration (-repeats N: repeated)
//	grlgq cv      -tune -data SPEC [-folds K]    nested cross-validation of train -tune (unbiased; -baselines on the same folds)
//	grlgq eval    -model MODEL -data SPEC        accuracy, classification report (precision, recall, F1), confusion matrix
//	grlgq predict -model MODEL -data SPEC [-o F] class, margins, probabilities per sample (text, CSV, JSON)
//	grlgq explain -model MODEL -data SPEC -o DIR pictures and JSON explaining decisions
//	grlgq inspect MODEL [-json]                  what a model file is (shapes, classes, relevances, settings)
//	grlgq repro   mnist|yale|eth80 -dir DATA     the paper's experiments
//
// SPEC is idx:IMAGES[,LABELS], folder:DIR, mat:FILE, npy:DATA[,LABELS] or
// csv:FILE (dataset.SourceFlag parses it). Data without labels (no labels
// file, -csv-label none, -mat-y "", a folder DIR/<set>/<images>) can be
// predicted; the other commands need labels. Run "grlgq help COMMAND" for
// a command's flags.
//
// The command is a client of the library's public API: it configures a
// model with model.Options, loads data with dataset's typed sources,
// trains with model.Train (hard-example training: hard.Images's hook),
// predicts and scores with the Model's methods, and imports none of
// engine, svd, linalg or kernels (go test ./internal/layers checks it).
// Its flag plumbing (ranged flags, usage errors, the limit flags, the
// progress bar) is cmd/internal/base, shared with grlgq-edge; its file
// guard is cmd/internal/runfiles, its pictures cmd/internal/plot.
//
// Errors are printed to stderr as one line "grlgq: WHAT: WHY" with exit
// code 1; bad usage (a flag outside its range included) prints the
// command's usage with exit code 2. A failed or interrupted run never
// replaces a file the user had: models, pictures, JSON and profiles are
// written to temporary files and renamed into place together once the
// command has succeeded (cmd/internal/runfiles over internal/safefile), never over an input,
// a device, a FIFO, a symbolic link, a hard link or a read-only file.
// SIGINT and SIGTERM end any command at once with "grlgq: interrupted" and
// exit code 1.
//
// Data are read within the loaders' budget (package dataset's Limits),
// set by -max-pixels (pixels per image), -max-set-images (images per set
// folder), -max-values (values of the whole data set, and pixels a folder
// decodes) and -max-file-bytes (bytes of one file after decompression),
// whose defaults are dataset.DefaultLimits(): an input over one is refused
// before it is allocated or decoded, with one line naming the flag that
// raises it. Data files and models must be regular files: a FIFO or a
// device is refused at once (package internal/safefile).
package main
