// Package protocol is the protocol of `grlgq demo` over the embedded UCI
// digits (package demo): the digits as a data set, a stratified holdout of
// TestFraction of them, training sets of m random same-class training
// digits, test sets of m test digits, and the untrained baseline. The
// command line adds the training (with its progress), the predictions and
// the text; a Go program can run the same protocol with model.Train and
// package score.
//
// Everything is a function of the seed: the holdout is dataset.Holdout
// seeded by it, the training grouping too, and the test grouping by
// seed+1 (so test sets are not the training grouping's twins). The test
// and training digits are disjoint.
package protocol
