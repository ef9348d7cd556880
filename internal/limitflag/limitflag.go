package limitflag

import (
	"errors"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// Hint returns err with a *imageset.LimitError's "(raise max-pixels)"
// reworded as "(raise it with -max-pixels)". Other errors are returned as
// they are; the result matches what err matched (errors.Is, errors.As).
func Hint(err error) error {
	var le *imageset.LimitError
	if err == nil || !errors.As(err, &le) {
		return err
	}
	old, msg := "(raise "+le.Limit+")", err.Error()
	if !strings.Contains(msg, old) {
		return err
	}
	return &hintError{msg: strings.Replace(msg, old, "(raise it with -"+le.Limit+")", 1), err: err}
}

// hintError is an error with a reworded message.
type hintError struct {
	msg string
	err error
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Unwrap() error { return e.err }
