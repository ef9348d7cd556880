//go:build !amd64 || purego

package cpu

// detect: no assembly on this build.
func detect() (avx512, avx2, halfWidth512 bool) { return false, false, false }
