// Command paths prints which kernel paths this machine runs: what the CPU
// supports, what GRLGQ_KERNELS caps it to, and so which implementations the
// tests' per-implementation loops exercise. CI prints it first.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/grlgq/grlgq/internal/cpu"
	"github.com/klauspost/cpuid/v2"
)

func main() {
	yes := map[bool]string{true: "yes", false: "no"}
	fmt.Printf("cpu: %s (family %d, model %d), %s/%s\n", cpuid.CPU.BrandName, cpuid.CPU.Family, cpuid.CPU.Model, runtime.GOOS, runtime.GOARCH)
	fmt.Printf("supports: avx512 %s, avx2+fma %s\n", yes[cpu.HasAVX512], yes[cpu.HasAVX2])
	paths := []string{}
	if cpu.AVX512 {
		paths = append(paths, "avx512")
	}
	if cpu.AVX2 {
		paths = append(paths, "avx2")
	}
	paths = append(paths, "generic")
	fmt.Printf("%s=%q: kernels choose %s; per-implementation tests run %s\n", cpu.EnvVar, os.Getenv(cpu.EnvVar), paths[0], strings.Join(paths, ", "))
}
