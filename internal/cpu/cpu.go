package cpu

import "os"

// EnvVar is the environment variable that caps the paths chosen at
// start-up: "avx2" (no AVX-512), "generic" (the pure-Go twins); unset,
// empty or anything else means the fastest the CPU supports. It is read
// once, when the program starts.
const EnvVar = "GRLGQ_KERNELS"

// What this CPU and OS support.
var (
	// HasAVX512: AVX512F, DQ and VL (ZMM kernels, K-register tails).
	HasAVX512 bool
	// HasAVX2: AVX, AVX2 and FMA3 (YMM kernels).
	HasAVX2 bool
	// HalfWidth512: an AVX-512 CPU that executes 512-bit operations as
	// two 256-bit halves (AMD family 0x19, Zen 4), whose FMAs rather than
	// its loads bound the block kernels (package kernels picks their
	// variant by it).
	HalfWidth512 bool
)

// The paths to use: the fastest the CPU supports, capped by EnvVar. They
// are independent: code with no AVX-512 path uses AVX2 when AVX512 is set.
var AVX512, AVX2 bool

func init() {
	HasAVX512, HasAVX2, HalfWidth512 = detect()
	AVX512, AVX2 = Choose(os.Getenv(EnvVar))
}

// Choose returns the paths to use under the EnvVar setting v: the fastest
// the CPU supports, capped by v.
func Choose(v string) (avx512, avx2 bool) {
	switch v {
	case "avx2":
		return false, HasAVX2
	case "generic":
		return false, false
	}
	return HasAVX512, HasAVX2
}
