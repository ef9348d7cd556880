package dataset

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func TestLoadCSV(t *testing.T) {
	dir := t.TempDir()
	text := "0,16,8,4,2\n 1 , 2,3,4, 10\n\n\"16\",0,0,0,2\n"
	for _, zip := range []bool{false, true} {
		b := []byte(text)
		if zip {
			b = gz(b)
		}
		p := writeFile(t, dir, "d.csv.gz", b)
		ds, err := (CSV{File: p, Width: 2, Height: 2, PixelMax: 16}).Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ds.Len() != 3 || ds.Dim != 4 || ds.Width != 2 {
			t.Fatalf("%d images of %d", ds.Len(), ds.Dim)
		}
		if ds.Images[0][1] != 1 || ds.Images[1][0] != 1.0/16 || ds.Images[2][0] != 1 {
			t.Fatalf("images %v", ds.Images)
		}
		// Labels 2, 10, 2 sort numerically: "2" < "10".
		if len(ds.Classes) != 2 || ds.Classes[0] != "2" || ds.Classes[1] != "10" || ds.Labels[1] != 1 || ds.Labels[2] != 0 {
			t.Fatalf("classes %v labels %v", ds.Classes, ds.Labels)
		}
	}
	p := writeFile(t, dir, "named.csv", []byte("x1,x2,species\n1,2,setosa\n3,4,virginica\n5,6,setosa\n"))
	ds, err := (CSV{File: p, Header: true}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Classes) != 2 || ds.Classes[1] != "virginica" || ds.Labels[2] != 0 || ds.Images[1][1] != 4 {
		t.Fatalf("classes %v labels %v images %v", ds.Classes, ds.Labels, ds.Images)
	}
}

// TestCSVByteOrderMark: a UTF-8 byte-order mark at the start of the file
// (spreadsheets write one) is skipped, gzipped or not, before a header or
// the first line, whichever way the bytes arrive; elsewhere it is a bad
// value as before.
func TestCSVByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	const bom = "\ufeff"
	for _, c := range []struct {
		text string
		opt  CSV
	}{
		{"1,2,a\n3,4,b\n", CSV{}},
		{"x1,x2,y\n1,2,a\n3,4,b\n", CSV{Header: true}},
		{"a,1,2\nb,3,4\n", CSV{Label: LabelFirst}},
		{"1,2\n3,4\n", CSV{Label: LabelNone}},
	} {
		for _, zip := range []bool{false, true} {
			b := []byte(bom + c.text)
			if zip {
				b = gz(b)
			}
			o := c.opt
			o.File = writeFile(t, dir, "bom.csv", b)
			ds, err := o.Load(context.Background())
			if err != nil {
				t.Fatalf("%q (gzip %v): %v", c.text, zip, err)
			}
			if ds.Len() != 2 || ds.Dim != 2 || ds.Images[0][0] != 1 || ds.Images[1][1] != 4 || c.opt.Label != LabelNone && ds.Classes[ds.Labels[0]] != "a" {
				t.Errorf("%q (gzip %v): images %v, labels %v of %v", c.text, zip, ds.Images, ds.Labels, ds.Classes)
			}
			// One byte per read: the mark split over reads.
			s, err := memSource("bom.csv", []byte(bom+c.text))
			if err != nil {
				t.Fatal(err)
			}
			s.r = iotest.OneByteReader(s.r)
			if ds, err := readCSV(s, c.opt); err != nil || ds.Len() != 2 || ds.Images[0][0] != 1 {
				t.Errorf("%q one byte per read: %v", c.text, err)
			}
		}
	}
	// Only at the start: a mark elsewhere, or a part of one, is no number.
	for text, frag := range map[string]string{
		"1,2,a\n" + bom + "3,4,b\n": `line 2, field 1: "\ufeff3"`,
		"\xef\xbb1,2,a\n":           `line 1, field 1: "\xef\xbb1"`,
		bom + bom + "1,2,a\n":       `line 1, field 1: "\ufeff1"`,
	} {
		_, err := (CSV{File: writeFile(t, dir, "bad.csv", []byte(text))}).Load(context.Background())
		wantErr(t, err, ErrValue, frag)
	}
	// A file of the mark alone is empty.
	_, err := (CSV{File: writeFile(t, dir, "bad.csv", []byte(bom))}).Load(context.Background())
	wantErr(t, err, ErrSize, "no data")
}

func TestLoadCSVErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		opt        CSV
		kind       error
		frags      []string
	}{
		{"ragged", "1,2,3\n1,2\n", CSV{}, ErrSize, []string{"line 2", "2 fields, want 3"}},
		{"ragged after blank", "1,2,3\n\n1,2,3,4\n", CSV{}, ErrSize, []string{"line 3"}},
		{"non-numeric", "1,2,3\n1,x,3\n", CSV{}, ErrValue, []string{"line 2, field 2", `"x"`}},
		{"NaN", "1,2,3\nNaN,2,3\n", CSV{}, ErrValue, []string{"line 2, field 1", "NaN"}},
		{"Inf", "1,Inf,3\n", CSV{}, ErrValue, []string{"line 1, field 2"}},
		{"overflow", "1,1e999,3\n", CSV{}, ErrValue, []string{"line 1, field 2"}},
		{"empty", "", CSV{}, ErrSize, []string{"no data"}},
		{"only header", "a,b\n", CSV{Header: true}, ErrSize, []string{"no data"}},
		{"one field", "1\n", CSV{}, ErrSize, []string{"line 1", "want pixels and a label"}},
		{"empty label", "1,2,\n", CSV{}, ErrValue, []string{"line 1: empty label"}},
		{"shape", "1,2,3,0\n", CSV{Width: 2, Height: 2}, ErrSize, []string{"3 pixels", "needs 4"}},
		{"half shape", "1,2,3,0\n", CSV{Width: 2}, ErrSize, []string{"both"}},
		{"bad quote", "1,\"2,3\n", CSV{}, ErrFormat, []string{"line 1"}},
		{"bad pixel max", "1,2\n", CSV{PixelMax: -1}, ErrValue, []string{"pixel max"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.csv", []byte(c.text))
			_, err := (func() CSV {
				o := c.opt
				o.File = p
				return o
			}()).Load(context.Background())
			wantErr(t, err, c.kind, append(c.frags, "dataset: "+p+": ")...)
		})
	}
	_, err := (CSV{File: writeFile(t, dir, "bad.csv.gz", gz([]byte("1,2\n3,4\n"))[:15])}).Load(context.Background())
	wantErr(t, err, ErrFormat, "bad.csv.gz")
}

// TestCSVLoneCRAtBufferEnd: a lone \r where the read buffer ends (or the
// input does) starts a record as it does elsewhere; it used to be given
// back with pos-- after peek had refilled the buffer (index -1).
func TestCSVLoneCRAtBufferEnd(t *testing.T) {
	for _, b := range [][]byte{
		[]byte("\r"),
		append(bytes.Repeat([]byte("\n"), 1<<16-1), "\r1,2,0\n"...),
		append(bytes.Repeat([]byte("\n"), 1<<16-1), "\r"...),
	} {
		s, err := memSource("cr.csv", b)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%d bytes: panic %v", len(b), r)
				}
			}()
			readCSV(s, CSV{Header: true})
			readCSV(s, CSV{})
		}()
	}
}

// TestCSVLongFieldError: a field that is not a number is quoted in the
// error whole when its quoted form is at most 40 characters, otherwise cut
// to a prefix whose quoted form fits (at a character boundary) followed by
// "...": a binary file read as CSV gives one short line.
func TestCSVLongFieldError(t *testing.T) {
	dir := t.TempDir()
	for _, field := range []string{"abc", strings.Repeat("\x80z", 3000), strings.Repeat("é", 100), strings.Repeat("x", 41), strings.Repeat("\x80", 60)} {
		p := writeFile(t, dir, "bad.csv", []byte("1,2,0\n"+field+",4,1\n"))
		_, err := (CSV{File: p}).Load(context.Background())
		if err == nil {
			t.Fatalf("field %.20q: no error", field)
		}
		msg := err.Error()
		head := "line 2, field 1: "
		i, j := strings.Index(msg, head), strings.Index(msg, " is not a finite number")
		if strings.Contains(msg, "\n") || i < 0 || j < i || len(msg)-len(p) > 200 {
			t.Fatalf("field %.20q: error %q, want one short line", field, msg)
		}
		q := msg[i+len(head) : j]
		cut := strings.HasSuffix(q, "...")
		got, uerr := strconv.Unquote(strings.TrimSuffix(q, "..."))
		switch {
		case uerr != nil:
			t.Errorf("field %.20q: %s does not unquote: %v", field, q, uerr)
		case !cut && got != field, len(field) <= 40 && cut:
			t.Errorf("field %.20q: quoted %s, want it whole", field, q)
		case cut && (!strings.HasPrefix(field, got) || len(q) > 45 || len(got) < 8 || !utf8.ValidString(got) && utf8.ValidString(field)):
			t.Errorf("field %.20q: quoted %s, want a prefix quoted in at most 40 characters", field, q)
		}
	}
}
