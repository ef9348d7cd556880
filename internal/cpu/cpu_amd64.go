//go:build amd64 && !purego

package cpu

import "github.com/klauspost/cpuid/v2"

func detect() (avx512, avx2, halfWidth512 bool) {
	avx512 = cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512VL)
	return avx512, cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3),
		avx512 && cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family == 0x19
}
