package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEdgeFlagRanges: -width and -height out of range are usage errors
// (exit 2) that state the range, before the model is read.
func TestEdgeFlagRanges(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.grlgq") // never opened
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "40000", "-height", "5"}, "0 to 32768"},
		{[]string{"-width", "-1", "-height", "5"}, "0 to 32768"},
		{[]string{"-width", "2048", "-height", "2048"}, "the limit is 1048576"},
		{[]string{"-width", "0", "-height", "5"}, "go together"},
		{[]string{"-width", "x"}, "invalid value"},
	} {
		args := append(append([]string{"-model", missing}, c.args...), "-")
		_, stderr, code := runEdge(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.HasSuffix(stderr, "\nrun 'grlgq-edge -h'\n") || strings.Count(stderr, "\n") != 2 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestEdgeLimits: the -max-* flags have ranges (usage errors), -width x
// -height is checked against -max-pixels, and a folder over a limit is
// refused before anything is decoded, with one line naming the flag: a
// header claiming 8000x8000 pixels, more images than -max-set-images, and
// hard links to one small PNG whose decoding is over -max-values.
func TestEdgeLimits(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-pixels", "0"}, "from 1 to 1073741824"},
		{[]string{"-max-set-images", "99999999999"}, "from 1 to 16777216"},
		{[]string{"-max-values", "-5"}, "from 1 to 68719476736"},
		{[]string{"-width", "20", "-height", "20", "-max-pixels", "100"}, "the limit is 100 (-max-pixels)"},
	} {
		_, stderr, code := runEdge(t, nil, append(append([]string{"-model", mp}, c.args...), "-")...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, image.NewGray(image.Rect(0, 0, 8000, 8000))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(big, "0.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	links := filepath.Join(dir, "links")
	if err := os.Mkdir(links, 0o755); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 256, 256))); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(links, "00.png")
	if err := os.WriteFile(first, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 20; i++ {
		if err := os.Link(first, filepath.Join(links, fmt.Sprintf("%02d.png", i))); err != nil {
			t.Skip(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{big}, "(raise it with -max-pixels)"},
		{[]string{"-max-set-images", "10", links}, "(raise it with -max-set-images)"},
		{[]string{"-max-values", "1000000", links}, "(raise it with -max-values)"},
	} {
		_, stderr, code := runEdge(t, nil, append([]string{"-model", mp}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// TestEdgeHelp: -h prints the whole usage on stdout, exit 0; a typo
// prints two lines, what is wrong and how to see the usage, exit 2.
func TestEdgeHelp(t *testing.T) {
	stdout, stderr, code := runEdge(t, nil, "-h")
	if code != 0 || !strings.Contains(stdout, "-max-pixels") || stderr != "" {
		t.Errorf("-h: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stderr, code = runEdge(t, nil, "-widht", "5")
	want := "grlgq-edge: flag provided but not defined: -widht (did you mean -width?)\nrun 'grlgq-edge -h'\n"
	if code != 2 || stderr != want {
		t.Errorf("typo: exit %d, stderr %q; want %q", code, stderr, want)
	}
}
