package model

import (
	"bytes"
	"encoding/json"
	"image"
	"strings"
	"testing"
)

// TestImageSizeMessages: every image size in the package's messages is
// written HEIGHTxWIDTH and says so, as dataset/imageset.FormatSize and the
// command line's -resize write one (an image 8 wide and 2 high is 2x8).
func TestImageSizeMessages(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal) // D = 16, ImageWidth 8, ImageHeight 2
	none := m.clone()
	none.cfg.ImageWidth, none.cfg.ImageHeight = 0, 0
	jb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	wrongJSON := bytes.Replace(jb, []byte(`"image_width":8`), []byte(`"image_width":3`), 1)
	if bytes.Equal(wrongJSON, jb) {
		t.Fatal("no image_width 8 in the JSON")
	}
	errOf := func(_ any, err error) error { return err }
	for _, c := range []struct {
		what string
		err  error
		want string
	}{
		{"width 4, height 0", errOf(none.WithImageSize(4, 0)), "image size 0x4 (height x width): want both positive"},
		{"not D pixels", errOf(none.WithImageSize(5, 3)), "image size 3x5 (height x width) does not make D = 16 pixels"},
		{"another size", errOf(m.WithImageSize(4, 4)), "image size 4x4, the model has 2x8 (height x width)"},
		{"no size to resize to", errOf(none.SampleFromImages([]image.Image{grayImage(11, 5, func(x, y int) uint8 { return 1 })})),
			"image 0 has 5x11 = 55 pixels (height x width), the model wants D = 16"},
		{"empty image", errOf(m.SampleFromImages([]image.Image{image.NewGray(image.Rect(0, 0, 0, 3))})), "image 0 is empty (3x0, height x width)"},
		{"JSON", new(Model).UnmarshalJSON(wrongJSON), "image size 2x3 (height x width) for D=16"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.what, c.err, c.want)
		}
	}
}
