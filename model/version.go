package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/grlgq/grlgq/kernels"
)

// FormatVersion is the newest version of the binary format: Load reads
// versions 1 to FormatVersion; Save writes the oldest version that holds
// the model (2, or 3 for a model whose Distance or Precision is not the
// default or that has metadata).
const FormatVersion = formatVersion

// FileVersion reads the start of a model file (the magic and the version
// field of its header, 12 bytes) from r and returns the version. It checks
// nothing else: a version Load does not read is returned with no error.
// Errors wrap ErrFormat (not a model file) or ErrTruncated.
func FileVersion(r io.Reader) (int, error) {
	var h [len(magic) + 4]byte
	n, err := io.ReadFull(r, h[:])
	if n > 0 && string(h[:min(n, len(magic))]) != magic[:min(n, len(magic))] {
		return 0, fmt.Errorf("model: file version: %w", ErrFormat)
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("model: file version: %w (%d of %d bytes)", ErrTruncated, n, len(h))
		}
		return 0, fmt.Errorf("model: file version: %w", err)
	}
	return int(binary.LittleEndian.Uint32(h[len(magic):])), nil
}

// Kernels names the compute path this process chose for its CPU:
// "avx512", "avx2" or "generic" (the pure-Go twins), decided once at
// start-up from the CPU's features, capped by the environment variable
// GRLGQ_KERNELS ("avx2", "generic"). For a Float64 model the paths give
// the same models and predictions up to the last bits of their sums. A
// Float32 model's training takes other routes on each path (float32-lane
// updates at d <= 32 on the asm paths, float64 ones on the generic path;
// its winners factorised in float32 lanes on the asm paths at
// 3 <= d <= 32, by other kernels on AVX-512 and AVX2, in float64
// elsewhere), so its models differ between paths in more than the last
// bits, with the same accuracy. It says which speed to expect (grlgq
// version prints it).
func Kernels() string { return kernels.Implementation() }
