package dataset

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real data sets of shared/data (see its README); each test skips when
// they are absent.

func TestRealMNIST(t *testing.T) {
	dir := dataDir(t, "mnist")
	t0 := time.Now()
	train, err := (IDX{Images: filepath.Join(dir, "train-images-idx3-ubyte.gz"), Labels: filepath.Join(dir, "train-labels-idx1-ubyte.gz")}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MNIST train loaded in %v", time.Since(t0))
	test, err := (IDX{Images: filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), Labels: filepath.Join(dir, "t10k-labels-idx1-ubyte.gz")}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 60000 || test.Len() != 10000 || train.Dim != 784 || train.Width != 28 || train.Height != 28 {
		t.Fatalf("train %d, test %d images of %d", train.Len(), test.Len(), train.Dim)
	}
	if strings.Join(train.Classes, "") != "0123456789" {
		t.Fatalf("classes %v", train.Classes)
	}
	// First labels of the original files.
	for i, want := range []int{5, 0, 4, 1, 9, 2, 1, 3, 1, 4} {
		if train.Labels[i] != want {
			t.Fatalf("train label %d = %d, want %d", i, train.Labels[i], want)
		}
	}
	for i, want := range []int{7, 2, 1, 0, 4, 1, 4, 9, 5, 9} {
		if test.Labels[i] != want {
			t.Fatalf("test label %d = %d, want %d", i, test.Labels[i], want)
		}
	}
	// The pixels are the file's bytes /255: check the MD5 of the
	// decompressed file given in the data README.
	h := md5.New()
	h.Write([]byte{0, 0, 8, 3, 0, 0, 0x27, 0x10, 0, 0, 0, 28, 0, 0, 0, 28})
	for _, img := range test.Images {
		for _, v := range img {
			b := math.Round(v * 255)
			if b/255 != v {
				t.Fatalf("pixel %v is not a byte/255", v)
			}
			h.Write([]byte{byte(b)})
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != "2646ac647ad5339dbf082846283269ea" {
		t.Fatalf("t10k images MD5 %s", got)
	}
	counts := train.ClassCounts()
	if counts[1] != 6742 || counts[5] != 5421 {
		t.Fatalf("class counts %v", counts)
	}
}

func TestRealYaleB(t *testing.T) {
	p := dataDir(t, "yaleb32/YaleB_32x32.mat")
	t0 := time.Now()
	ds, err := MAT{File: p, Width: 32, Height: 32, Transpose: true, PixelMax: 255}.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Yale B loaded in %v", time.Since(t0))
	if ds.Len() != 2414 || ds.Dim != 1024 || len(ds.Classes) != 38 || ds.Classes[0] != "1" || ds.Classes[37] != "38" {
		t.Fatalf("%d images of %d, %d classes", ds.Len(), ds.Dim, len(ds.Classes))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range ds.Images {
		for _, v := range x {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo < 0 || hi > 1 || hi < 0.9 {
		t.Fatalf("pixels in [%g, %g]", lo, hi)
	}
	// Transposed correctly: the mean face (lighting from the left and from
	// the right averages out) is nearly symmetric about its vertical axis,
	// not about its horizontal one (measured: 5.2 against 26.7; swapped
	// without the transpose).
	mean := make([]float64, 1024)
	for _, x := range ds.Images {
		for i, v := range x {
			mean[i] += v / float64(ds.Len())
		}
	}
	var lr, ud float64
	for r := 0; r < 32; r++ {
		for c := 0; c < 16; c++ {
			lr += math.Abs(mean[r*32+c] - mean[r*32+31-c])
			ud += math.Abs(mean[c*32+r] - mean[(31-c)*32+r])
		}
	}
	if !(lr < 0.5*ud) {
		t.Fatalf("mean face: left-right asymmetry %g, up-down %g: image not upright", lr, ud)
	}
	t0 = time.Now()
	small, err := ds.Resized(context.Background(), 20, 20, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Yale B resized to 20x20 in %v", time.Since(t0))
	if small.Dim != 400 || small.Len() != 2414 {
		t.Fatalf("resized to %d", small.Dim)
	}
	raw, err := ReadMAT(context.Background(), p, Limits{})
	if err != nil || raw["fea"].Class != "double" || raw["gnd"].Dims[1] != 1 {
		t.Fatalf("ReadMAT: %v", err)
	}
}

func TestRealETH80(t *testing.T) {
	dir := dataDir(t, "eth80")
	t0 := time.Now()
	ds, err := Folder{Root: dir, Resize: Size{20, 20}}.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ETH-80 loaded and resized to 20x20 in %v", time.Since(t0))
	if strings.Join(ds.Classes, " ") != "apple car cow cup dog horse pear tomato" {
		t.Fatalf("classes %v", ds.Classes)
	}
	if len(ds.Sets) != 80 || ds.Len() != 3280 || ds.Dim != 400 || ds.Width != 20 {
		t.Fatalf("%d sets, %d images of %d", len(ds.Sets), ds.Len(), ds.Dim)
	}
	for _, s := range ds.Sets {
		if len(s.Images) != 41 {
			t.Fatalf("set %s has %d views", s.Name, len(s.Images))
		}
	}
	if ds.Sets[0].Name != "apple/apple1" || ds.Sets[1].Name != "apple/apple10" {
		t.Fatalf("sets %s %s", ds.Sets[0].Name, ds.Sets[1].Name)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	// Gray values in [0, 1], not constant: an object on a background.
	x := ds.Images[0]
	lo, hi := 1.0, 0.0
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo < 0 || hi > 1 || hi-lo < 0.2 {
		t.Fatalf("first image spans [%g, %g]", lo, hi)
	}
	// The protocol's training part: 5 objects per category, sets -> d=5.
	var train []int
	perClass := make([]int, len(ds.Classes))
	for i, c := range ds.SetLabels() {
		if perClass[c] < 5 {
			perClass[c]++
			train = append(train, i)
		}
	}
	if len(train) != 40 {
		t.Fatalf("%d training sets", len(train))
	}
	t0 = time.Now()
	subs, err := SetSubspaces(ds, train, SetOptions{D: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("40 ETH-80 sets (400x41) -> 5-D subspaces in %v", time.Since(t0))
	if subs.Len() != 40 {
		t.Fatalf("%d subspaces", subs.Len())
	}
}

func TestRealDigits(t *testing.T) {
	p := dataDir(t, "digits/digits.csv.gz")
	ds, err := CSV{File: p, Width: 8, Height: 8, PixelMax: 16}.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 1797 || ds.Dim != 64 || len(ds.Classes) != 10 {
		t.Fatalf("%d images of %d, %d classes", ds.Len(), ds.Dim, len(ds.Classes))
	}
	for _, x := range ds.Images {
		for _, v := range x {
			if v < 0 || v > 1 || v*16 != math.Trunc(v*16) {
				t.Fatalf("pixel %v is not k/16", v)
			}
		}
	}
}
