package base

import (
	"errors"
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/dataset/imageset"
)

func TestHint(t *testing.T) {
	le := &imageset.LimitError{File: "a/s/1.png", What: "image of 8000x8000", Limit: imageset.LimitPixels, Value: 64000000, Max: 4194304}
	err := Hint(fmt.Errorf("load folder:a: %w", le))
	want := "load folder:a: a/s/1.png: image of 8000x8000: 64000000 pixels per image, over the limit of 4194304 (raise it with -max-pixels)"
	if err.Error() != want {
		t.Fatalf("got  %q\nwant %q", err, want)
	}
	var got *imageset.LimitError
	if !errors.Is(err, imageset.ErrLimit) || !errors.As(err, &got) || got != le {
		t.Fatalf("%v no longer matches the limit error", err)
	}
	other := errors.New("load: no such file")
	if Hint(other) != other || Hint(nil) != nil {
		t.Fatal("Hint changed an error that is not over a limit")
	}
}
