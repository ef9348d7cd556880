//go:build !unix

package dataset

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
