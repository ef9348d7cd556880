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
// GRLGQ_KERNELS ("avx2", "generic"). The paths give the same models and
// predictions up to the last bits of their sums (a float32 model at
// d <= 32 trains with float32-lane updates on the asm paths and float64
// ones on the generic path, and factorises its winners in float32 lanes
// on the asm paths at 3 <= d <= 32, with other bits on AVX-512 and on
// AVX2, and in float64 elsewhere: other bits, the same accuracy); it says which speed to expect (grlgq version
// prints it).
func Kernels() string { return kernels.Implementation() }
