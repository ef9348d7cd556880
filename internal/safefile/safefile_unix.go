//go:build unix

package safefile

import (
	"io/fs"
	"syscall"
)

const oNonblock = syscall.O_NONBLOCK

// links returns the number of hard links of fi's file.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
