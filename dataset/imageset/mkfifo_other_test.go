//go:build !unix

package imageset

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
