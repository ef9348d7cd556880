// Package safefile is how the grlgq tools touch files: every file they write
// (models, profiles, pictures, JSON) is replaced atomically, and every file
// they read by name is opened without blocking on a special file.
//
// Writing: Create makes a temporary file beside the target, named
// ".NAME.PID-N.grlgq-tmp"; Commit syncs it, closes it and renames it over
// the target (then syncs the folder), so a reader or a crash sees the old
// file or the new one, never a mix; File.Close syncs and closes it earlier,
// for a program that commits many outputs together and should not hold a
// descriptor per output meanwhile. Abort removes it. Before anything is
// written, CheckTarget refuses a target that is not a regular file (a
// folder, a FIFO, a socket, a device such as /dev/null), a symbolic link
// (replacing it would silently cut the link instead of writing its target),
// a file with other hard links (they would keep the old content), and a
// read-only file. A replaced file keeps its permission bits; a new one gets
// 0644 less the umask. CommitRemove also removes, once the new files are
// in place and under the same lock, files of an earlier run that the new
// ones supersede.
//
// Every temporary file is registered until it is committed or aborted:
// Abandon, for a process about to exit on a signal, removes them all and
// makes every later Create and Commit fail with ErrInterrupted. Commit
// renames under the same lock, so a commit is either complete or not
// started when Abandon returns. A temporary file left by a process that
// could not clean up (SIGKILL, a crash) is found by Leftovers.
//
// Reading: Open opens a file for reading with O_NONBLOCK and refuses
// anything that is not a regular file, so a FIFO or a device given as an
// input is an error at once rather than a hang.
//
// The package imports only the standard library, so that every layer
// (model's SaveFile included) can use it. Its functions are safe for
// concurrent use; a *File is used by one goroutine.
package safefile
