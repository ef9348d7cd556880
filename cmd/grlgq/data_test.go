package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/dataset"
)

// Moved from dataset (TestSizeFlag) with the flags themselves.
func TestOptionFlags(t *testing.T) {
	var o dataset.Options
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	addOptionFlags(fs, &o)
	if err := fs.Parse([]string{"-image", "32x32", "-resize", "20X24", "-mat-x", "X", "-mat-transpose", "-pixel-max", "255"}); err != nil {
		t.Fatal(err)
	}
	if o.Shape != (dataset.Size{Height: 32, Width: 32}) || o.Resize != (dataset.Size{Height: 20, Width: 24}) || o.MATX != "X" || o.MATY != "gnd" || !o.MATTranspose || o.PixelMax != 255 || o.NPYTol != dataset.DefaultOrthoTol {
		t.Fatalf("options %+v", o)
	}
	fs.SetOutput(new(strings.Builder))
	for _, v := range []string{"32", "0x4", "ax3", "3x", "-1x2"} {
		if err := fs.Parse([]string{"-image", v}); err == nil {
			t.Errorf("-image %s: no error", v)
		}
	}
}
