//go:build !amd64 || purego

package cpu

// detect: no assembly on this build.
func detect() (avx512, avx2 bool) { return false, false }
