package dataset

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	good := map[string]Source{
		"idx:a.gz,b.gz":   IDX{Images: "a.gz", Labels: "b.gz"},
		"idx:a.gz":        IDX{Images: "a.gz"},
		"folder:/x/eth":   Folder{Root: "/x/eth"},
		"mat:C:/y.mat":    MAT{File: "C:/y.mat"},
		"npy:d.npy,l.npy": NPY{Data: "d.npy", Labels: "l.npy"},
		"npy:d.npy":       NPY{Data: "d.npy"},
		"csv:d.csv.gz":    CSV{File: "d.csv.gz"},
	}
	for s, want := range good {
		got, err := ParseSource(s)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSource(%q) = %#v, %v; want %#v", s, got, err, want)
			continue
		}
		if got.String() != s {
			t.Errorf("String() = %q, want %q", got.String(), s)
		}
		if in := got.Inputs(); len(in) != strings.Count(s, ",")+1 || in[0] == "" {
			t.Errorf("%s: Inputs %v", s, in)
		}
	}
	bad := map[string]string{
		"mnist":     "want SCHEME:PATH",
		"png:x":     `unknown scheme "png"`,
		"idx:a,b,c": "idx takes idx:IMAGES[,LABELS], got 3",
		"idx:a,":    "empty LABELS",
		"csv:a,b":   "csv takes csv:FILE",
		"folder:":   "empty DIR",
		"npy:a,b,c": "got 3",
		"":          "want SCHEME:PATH",
		"IDX:a,b":   "unknown scheme",
		// A name that says its scheme gets a hint, never a guess.
		"digits.csv.gz":             "want SCHEME:PATH (did you mean csv:digits.csv.gz?), one of",
		"d/x.CSV":                   "(did you mean csv:d/x.CSV?)",
		"x.npy":                     "(did you mean npy:x.npy?)",
		"yale.mat":                  "(did you mean mat:yale.mat?)",
		"train-images-idx3-ubyte":   "(did you mean idx:train-images-idx3-ubyte?)",
		"t10k-images-idx3-ubyte.gz": "(did you mean idx:t10k-images-idx3-ubyte.gz?)",
		"eth80/":                    "(did you mean folder:eth80/?)",
		"cvs:digits.csv":            `unknown scheme "cvs" (did you mean csv:digits.csv?), want one of`,
		"data/digits.txt":           "want SCHEME:PATH, one of",
	}
	for s, frag := range bad {
		_, err := ParseSource(s)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseSource(%q) error %v, want ErrSpec mentioning %q", s, err, frag)
		}
		if err != nil && !strings.Contains(frag, "did you mean") && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("ParseSource(%q) error %v: a hint for a name that says no scheme", s, err)
		}
	}
	src, _ := ParseSource("csv:" + filepath.Join(t.TempDir(), "none.csv"))
	if _, err := src.Load(context.Background()); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

// TestSourceFlag: -data parsed once by flag into the typed value of its
// scheme, with the format flags bound to its fields and the shared ones
// copied in.
func TestSourceFlag(t *testing.T) {
	var sf SourceFlag
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&sf, "data", "")
	fs.StringVar(&sf.MAT.X, "mat-x", "fea", "")
	fs.BoolVar(&sf.MAT.Transpose, "mat-transpose", false, "")
	fs.Float64Var(&sf.PixelMax, "pixel-max", 0, "")
	fs.Var(&sf.Resize, "resize", "")
	if err := fs.Parse([]string{"-mat-transpose", "-data", "mat:y.mat", "-pixel-max", "255", "-resize", "20x20", "-mat-x", "X"}); err != nil {
		t.Fatal(err)
	}
	want := MAT{File: "y.mat", X: "X", Transpose: true, PixelMax: 255, Resize: Size{20, 20}}
	if got := sf.Source(); !reflect.DeepEqual(got, want) || sf.String() != "mat:y.mat" || sf.Scheme() != "mat" {
		t.Fatalf("Source() = %#v, want %#v", got, want)
	}
	if err := fs.Parse([]string{"-data", "csv:a,b"}); err == nil {
		t.Fatal("bad spec: no error")
	}
	if (&SourceFlag{}).Source() != nil {
		t.Fatal("unset flag: a source")
	}
}

func TestSizeSet(t *testing.T) {
	var s Size
	if err := s.Set("20X24"); err != nil || s != (Size{Height: 20, Width: 24}) || s.String() != "20x24" {
		t.Fatalf("Set(20X24): %v, %+v", err, s)
	}
	for _, v := range []string{"32", "0x4", "ax3", "3x", "-1x2", "32768x32769"} {
		if err := s.Set(v); err == nil {
			t.Errorf("Set(%q): no error", v)
		}
	}
	if (&Size{}).String() != "" {
		t.Error("zero Size: not \"\"")
	}
	// A Size value, not only a pointer, prints as HxW.
	if got := fmt.Sprint(Size{Height: 20, Width: 30}); got != "20x30" {
		t.Errorf("fmt.Sprint(Size{Height: 20, Width: 30}) = %q, want 20x30", got)
	}
	if got := fmt.Sprintf("%v", struct{ R Size }{Size{Height: 2, Width: 3}}); got != "{2x3}" {
		t.Errorf("a Size in a struct: %q, want {2x3}", got)
	}
}

// TestShapeMessages: the sizes of dataset's messages are HxW, as the
// command line's -resize takes them, whatever order the arguments are in.
func TestShapeMessages(t *testing.T) {
	if _, err := Shifted(make([]float64, 5), 3, 2, 1, 0); err == nil || !strings.Contains(err.Error(), "is not 2x3") {
		t.Errorf("Shifted(5 pixels, width 3, height 2): %v, want 2x3", err)
	}
	ds := &Dataset{Source: "s", Dim: 6, Width: 3, Height: 2, Images: [][]float64{make([]float64, 6)}}
	if _, err := ds.Resized(context.Background(), 4, 0, Limits{}); err == nil || !strings.Contains(err.Error(), "resize to 0x4") {
		t.Errorf("Resized(width 4, height 0): %v, want 0x4", err)
	}
}

func TestLoadOptions(t *testing.T) {
	dir := t.TempDir()
	bg := context.Background()
	// MAT with options: transpose, pixel max, resize 2x3 -> 1x1.
	w := newMAT(binary.LittleEndian, true)
	yaleLike(w, miDOUBLE, miDOUBLE)
	p := writeFile(t, dir, "y.mat", w.bytes())
	ds, err := MAT{File: p, Width: 3, Height: 2, Transpose: true, PixelMax: 255}.Load(bg)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Images[1][4] != 111.0/255 {
		t.Fatalf("image 1 = %v", ds.Images[1])
	}
	r, err := MAT{File: p, Width: 3, Height: 2, Transpose: true, PixelMax: 255, Resize: Size{1, 1}}.Load(bg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dim != 1 || r.Width != 1 || len(r.Images[0]) != 1 || r.Labels[0] != ds.Labels[0] {
		t.Fatalf("resized: %+v", r)
	}
	// Resizing needs [0, 1] pixels and a known shape.
	_, err = MAT{File: p, Width: 3, Height: 2, Transpose: true, Resize: Size{1, 1}}.Load(bg)
	if err == nil || !strings.Contains(err.Error(), "pixel max") {
		t.Fatalf("resize of 0..255 data: %v", err)
	}
	_, err = MAT{File: p, Resize: Size{1, 1}}.Load(bg)
	if err == nil || !strings.Contains(err.Error(), "shape unknown") {
		t.Fatalf("resize without shape: %v", err)
	}
	// Without labels.
	u, err := MAT{File: p, NoLabels: true}.Load(bg)
	if err != nil || u.Labelled() || u.Classes != nil || u.Len() != ds.Len() || u.Kind() != KindImages {
		t.Fatalf("MAT without labels: %+v, %v", u, err)
	}
	// CSV and npy.
	cp := writeFile(t, dir, "d.csv", []byte("1,2,3,4,0\n5,6,7,8,1\n"))
	ds, err = CSV{File: cp, Width: 2, Height: 2, PixelMax: 8}.Load(bg)
	if err != nil || ds.Images[1][3] != 1 || ds.Height != 2 {
		t.Fatalf("csv: %v %v", err, ds)
	}
	dp := writeFile(t, dir, "b.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases())))
	lp := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{2}, i64le([]int64{0, 1})))
	if ds, err = (NPY{Data: dp, Labels: lp}).Load(bg); err != nil || ds.SubDim != 2 || ds.Kind() != KindBases || !ds.Labelled() {
		t.Fatalf("npy: %v", err)
	}
	if ds, err = (NPY{Data: dp}).Load(bg); err != nil || ds.Labelled() || ds.Len() != 2 {
		t.Fatalf("npy without labels: %v", err)
	}
	subs, err := BasisSubspaces(ds, nil)
	if err != nil || subs.Labels[1] != NoLabel {
		t.Fatalf("bases without labels: %v", err)
	}
	if _, err := TrainingSubspaces(ds, TrainingOptions{D: 2}); !errors.Is(err, ErrNoLabels) {
		t.Fatalf("training on bases without labels: %v", err)
	}
}

// TestLoadAt: data loaded at a model's image size: a folder decodes at it,
// CSV images of another size are resized, images of that size and bases
// are not touched, and a resize of the source's own wins.
func TestLoadAt(t *testing.T) {
	dir := t.TempDir()
	bg := context.Background()
	cp := writeFile(t, dir, "d.csv", []byte("0,0.25,0.5,1,0\n1,0.5,0.25,0,1\n"))
	src := CSV{File: cp, Width: 2, Height: 2}
	same, err := LoadAt(bg, src, 2, 2)
	if err != nil || same.Images[0][1] != 0.25 {
		t.Fatalf("same size: %v %v", same, err)
	}
	big, err := LoadAt(bg, src, 4, 3)
	if err != nil || big.Width != 4 || big.Height != 3 || big.Dim != 12 {
		t.Fatalf("resized: %+v %v", big, err)
	}
	src.Resize = Size{Height: 1, Width: 1}
	own, err := LoadAt(bg, src, 4, 3)
	if err != nil || own.Dim != 1 {
		t.Fatalf("own resize: %+v %v", own, err)
	}
	unknown, err := LoadAt(bg, CSV{File: cp}, 4, 3)
	if err != nil || unknown.Dim != 4 {
		t.Fatalf("unknown shape: %+v %v", unknown, err)
	}
	root := filepath.Join(dir, "tree")
	writeSetTree(t, root, map[string][]string{"a/s1": {"x.png", "y.png"}, "b/s2": {"x.png"}}, 5, 4)
	var steps [][2]int
	f, err := LoadAt(bg, Folder{Root: root, Workers: 2, Progress: func(done, total int) { steps = append(steps, [2]int{done, total}) }}, 3, 2)
	if err != nil || f.Width != 3 || f.Height != 2 || f.Kind() != KindSets || !f.Labelled() {
		t.Fatalf("folder: %+v %v", f, err)
	}
	if len(steps) != 3 || steps[0] != [2]int{1, 3} || steps[2] != [2]int{3, 3} {
		t.Errorf("decoding progress %v, want 1/3, 2/3, 3/3", steps)
	}
}

// TestFolderWithoutLabels: ROOT/<set>/<images> loads as sets without
// labels, which predict (EvalSamples) but do not train.
func TestFolderWithoutLabels(t *testing.T) {
	root := filepath.Join(t.TempDir(), "new")
	writeSetTree(t, root, map[string][]string{"mystery1": {"a.png", "b.png", "c.png"}, "mystery2": {"a.png", "b.png", "c.png"}}, 4, 4)
	ds, err := Folder{Root: root}.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds.Labelled() || ds.Kind() != KindSets || len(ds.Sets) != 2 || ds.Sets[1].Name != "mystery2" || ds.Sets[0].Label != NoLabel || ds.Len() != 6 {
		t.Fatalf("data set %+v", ds)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	// Every image is named by its file; other data by row.
	if got, want := ds.ItemName(4), filepath.Join(root, "mystery2", "b.png"); got != want || len(ds.Files) != 6 {
		t.Fatalf("image 4 named %q, want %q (%d files)", got, want, len(ds.Files))
	}
	if got := (&Dataset{}).ItemName(7); got != "row 7" {
		t.Fatalf("item 7 of a file named %q", got)
	}
	bad := *ds
	bad.Files = bad.Files[:5]
	if err := bad.Validate(); err == nil {
		t.Fatal("5 file names for 6 images: valid")
	}
	ts, err := EvalSamples(ds, EvalOptions{D: 2})
	if err != nil || ts.Kind != KindSets || ts.Labels[0] != NoLabel || ts.Names[1] != "mystery2" {
		t.Fatalf("samples %+v, %v", ts, err)
	}
	if _, err := TrainingSubspaces(ds, TrainingOptions{D: 2}); !errors.Is(err, ErrNoLabels) {
		t.Fatalf("training without labels: %v", err)
	}
	if _, err := (Folder{Root: root, Layout: LayoutClasses}).Load(context.Background()); err == nil {
		t.Fatal("forced classes layout: no error")
	}
	if cm := ds.ClassMap([]string{"a", "b"}); len(cm) != 0 {
		t.Fatalf("class map of data without labels: %v", cm)
	}

}
