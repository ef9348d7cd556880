// Package score counts how well predicted classes match the true ones:
// accuracy, per-class recall and the confusion matrix, from two slices of
// class indices (Count), pools counts (Pool: cross-validation's folds),
// makes scikit-learn's classification report of them (Scores.Report:
// precision, recall, F1 and support per class, macro and weighted
// averages) and writes it as text, CSV or a LaTeX table (WriteReport). Model.Score of package model counts with it, and so do
// the callers of Model.Score: the command line's eval, predict and demo,
// selection's cross-validation and the paper protocols (package paper). It
// imports only the standard library and knows nothing of models or data
// sets, so a program can score predictions it made in any way.
//
// # Classes, rejections and unknown classes
//
// Classes are 0..C-1. A predicted class of Rejected (-1, a model's
// "no decision") is never correct; it is counted in Scores.Rejected and in
// the last column (index C) of its true class's confusion row. A true class
// outside 0..C-1 (a class the classifier does not know, e.g. -1 for a test
// class missing from the model) is never correct either: it counts in N and
// Scores.Unknown, and in no per-class figure or confusion row. A predicted
// class outside -1..C-1 is a programmer error (panic), as are slices of
// different lengths.
//
// # Memory
//
// Count allocates its result; it keeps no reference to its arguments.
package score
