//go:build amd64 && !purego

package svd

import "github.com/klauspost/cpuid/v2"

// useAVX512 selects the AVX-512 kernels. Tests flip it to run the pure-Go
// path too.
var useAVX512 = hasAVX512

// hasAVX512 reports whether the CPU has the AVX-512 subsets the kernels use.
var hasAVX512 = false && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512VL)

const useAVX512Possible = true

func (w *Batch) valuesAVX512(s []float64, lds int, a []float64, lda, step, k int) error {
	panic("svd: not yet")
}
