//go:build !unix

package imageset

import "os"

// openNonblock opens path read-only (systems without FIFOs that block on
// open).
func openNonblock(path string) (*os.File, error) {
	return os.Open(path)
}
