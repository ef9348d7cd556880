// Package cpu is the one place where the module decides which assembly
// paths run: what the CPU (and OS) support, read once at start-up from
// github.com/klauspost/cpuid/v2, capped by the environment variable
// GRLGQ_KERNELS (EnvVar). Packages kernels and svd copy AVX512 and AVX2
// into their own package-level booleans, read by a plain if in each kernel,
// so that their tests can flip them to run every path on one machine
// (HasAVX512 and HasAVX2 say which paths this CPU can run). HalfWidth512
// (AMD family 0x19, Zen 4: AVX-512 executed as two 256-bit halves) picks
// the variant of kernels' AVX-512 block kernels, not a path: both give
// the same bits.
//
// On amd64 without the purego tag the features come from cpuid; on any
// other build every boolean is false (the pure-Go twins). The package has
// no other state, imports only cpuid and the standard library, and its
// variables are written only during initialisation.
package cpu
