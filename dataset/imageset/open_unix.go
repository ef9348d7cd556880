//go:build unix

package imageset

import (
	"os"
	"syscall"
)

// openNonblock opens path read-only with O_NONBLOCK, so that opening a FIFO
// without a writer returns at once instead of waiting for one.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
