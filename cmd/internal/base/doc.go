// Package base is the command-line plumbing the two binaries share,
// grlgq and grlgq-edge (as cmd/go keeps its own in cmd/go/internal/base):
// flag sets that report instead of exiting, numeric flags with a range
// (checked as they are parsed, printed by PrintDefaults), usage errors,
// the input-limit flags (-max-pixels, -max-set-images, -max-values,
// -max-file-bytes) and the hint that names them in a limit error, the one
// error report (Report: "PROG: CMD: MSG" on one line; after a usage
// error a second line "run 'PROG help CMD'", like cmd/go, and a "did you
// mean" for a flag name one typo away; exit codes 0, 1, 2), the end on SIGINT or SIGTERM
// (HandleSignals) and the progress bar.
//
// It imports the standard library and dataset/imageset (its Limits) only,
// so that the edge binary may use it: no loader, no model, no plotting.
// It prints only what it is asked to (a usage text, a report, a progress
// bar).
package base
