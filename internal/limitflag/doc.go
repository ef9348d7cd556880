// Package limitflag words an input-limit error for the command lines grlgq
// and grlgq-edge, whose flags are named after the limits (-max-pixels,
// -max-set-images, -max-values, -max-file-bytes).
//
// The data packages know no flags: a *imageset.LimitError (=
// dataset.LimitError) ends with the limit's name, "(raise max-pixels)".
// Hint rewords that as "(raise it with -max-pixels)", the flag a user of
// either binary sets. It imports only the standard library and
// dataset/imageset, so the edge binary may use it (no loader, no plotting).
package limitflag
