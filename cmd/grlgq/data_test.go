package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/dataset"
)

// TestDataFlags: -data is parsed once into the typed source of its
// scheme, the format flags land in its fields and the shared ones are
// copied in.
func TestDataFlags(t *testing.T) {
	var df dataFlags
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	df.addFlags(fs)
	if err := fs.Parse([]string{"-data", "mat:y.mat", "-image", "32x32", "-resize", "20X24", "-mat-x", "X", "-mat-transpose", "-pixel-max", "255"}); err != nil {
		t.Fatal(err)
	}
	if err := df.check(fs); err != nil {
		t.Fatal(err)
	}
	want := dataset.MAT{File: "y.mat", X: "X", Y: "gnd", Transpose: true, Width: 32, Height: 32, PixelMax: 255, Resize: dataset.Size{Height: 20, Width: 24}, Limits: dataset.DefaultLimits()}
	if got := df.source(0); !reflect.DeepEqual(got, want) {
		t.Fatalf("source %#v,\nwant %#v", got, want)
	}
	for _, v := range []string{"32", "0x4", "ax3", "3x", "-1x2"} {
		if err := fs.Parse([]string{"-image", v}); err == nil {
			t.Errorf("-image %s: no error", v)
		}
	}
	var un dataFlags
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	un.addFlags(fs)
	if err := fs.Parse([]string{"-data", "csv:d.csv", "-csv-label", "none"}); err != nil {
		t.Fatal(err)
	}
	if err := un.check(fs); err != nil {
		t.Fatal(err)
	}
	if c := un.source(1).(dataset.CSV); c.Label != dataset.LabelNone || c.File != "d.csv" {
		t.Fatalf("csv source %#v", c)
	}
	if err := fs.Parse([]string{"-csv-label", "middle"}); err == nil {
		t.Error("-csv-label middle: no error")
	}
}

// TestSizeFlagMessages: the refusals of -width and -height name the flags
// with their values, and a size they make is written HxW, as -resize
// takes it: -width 10 -height 5 is 5x10.
func TestSizeFlagMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "0", "-height", "5"}, "(got -width 0 -height 5)"},
		{[]string{"-width", "10", "-height", "5", "-resize", "10x5"}, "-resize 10x5 and -width 10 -height 5 (5x10) disagree"},
	} {
		var df dataFlags
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		df.addFlags(fs)
		if err := fs.Parse(append([]string{"-data", "csv:d.csv"}, c.args...)); err != nil {
			t.Fatal(err)
		}
		if err := df.check(fs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
