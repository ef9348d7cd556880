//go:build amd64 && !purego

package cpu

import "github.com/klauspost/cpuid/v2"

func detect() (avx512, avx2 bool) {
	return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512VL),
		cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
}
