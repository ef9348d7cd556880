//go:build purego

package paper

// purego: the pure-Go kernels. The real-data protocols then run 2-3 times
// slower than in the normal build, which already runs them (CI's purego step
// would pass go test's 10 minutes on a busy 2-core machine); the kernels'
// pure-Go twins are tested bit for bit against the assembly in their own
// packages and by the edge binary's cross-architecture check.
const purego = true
