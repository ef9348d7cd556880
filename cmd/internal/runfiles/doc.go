// Package runfiles is the guard of a command's run over the files it
// touches (package grlgq's; the edge binary writes no file). Before any
// work the command declares its inputs (data files and folders, a model)
// and its outputs: an input must be a regular file (or a folder where one
// is expected) and is refused at once, without blocking, when it is a
// FIFO, a device or a socket; an output may not be an input, lie inside an
// input folder, or be named twice, and must be replaceable
// (safefile.CheckTarget): these are usage errors of the command. Once
// folder data is loaded, the folders it reaches through symbolic links
// (linked class and set folders) are input folders too (DataFolders).
// Outputs are written to temporary files and renamed into place together
// by Commit, once the command has succeeded, which then removes the files
// of an earlier run they supersede (RemoveOnCommit); Abort removes the
// temporary files on any other way out, so a failed or interrupted run
// never replaces nor removes a user's file.
package runfiles
