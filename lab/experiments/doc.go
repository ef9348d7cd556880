// Package experiments is the GRLGQ lab: the studies, tuning runs and
// diagnoses (TestStudy*, TestTune*, TestDiagnose*), the single-image
// trainer imageLVQ they compared against, and the X_* environment knobs
// that vary a study, beside a copy of the paper protocols (mnist.go,
// yale.go, eth80.go) with every variant the studies tried (hardSpec's Mode
// "nn" and Min, yaleSpec.Images, eth80Spec.EpochGrid, epoch hooks).
//
// It is a module of its own (github.com/grlgq/grlgq/lab) so that the
// product never imports it. The protocols as adopted are package
// github.com/grlgq/grlgq/paper (what `grlgq repro` runs), hard-example
// training is package github.com/grlgq/grlgq/hard; the findings, what was
// tried, the numbers and why the adopted settings won, are in
// docs/notebook.md. This copy of the protocols is not kept in step with
// package paper: change a study here, adopt a result there.
//
// The studies read the real data (GRLGQ_DATA) and most are opt-in
// (GRLGQ_TUNE=1); run them from lab/, e.g.
//
//	GRLGQ_DATA=../../shared/data GRLGQ_TUNE=1 go test -run TestStudyHardMNIST -v -timeout 2h ./experiments
//
// CI only vets this module; it does not run its tests.
package experiments
