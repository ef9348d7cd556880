// Package base is the command-line plumbing the two binaries share,
// grlgq and grlgq-edge (as cmd/go keeps its own in cmd/go/internal/base):
// flag sets that report instead of exiting, numeric flags with a range
// (checked as they are parsed, printed by PrintDefaults), usage errors,
// the input-limit flags (-max-pixels, -max-set-images, -max-values,
// -max-file-bytes) and the hint that names them in a limit error.
//
// It imports the standard library and dataset/imageset (its Limits) only,
// so that the edge binary may use it: no loader, no model, no plotting.
// It prints nothing itself but the usage text it is asked for; exit codes
// are the binaries' (0 success, 1 failure, 2 bad usage).
package base
