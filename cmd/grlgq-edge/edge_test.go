package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

var fixtureOut = flag.String("fixture", "", "TestFixture: write the CI fixture (model and inputs) into this folder")

// Fixture geometry: 8x8 images, 3 classes, d = 3, training sets of 6.
const (
	fxW, fxH = 8, 8
	fxDim    = fxW * fxH
	fxD      = 3
	fxM      = 6
)

// fxImage returns a synthetic 8x8 image of class c in [0, 1], quantised to
// 8 bits (so a PNG holds it exactly): a class-specific mix of smooth
// patterns plus noise.
func fxImage(rng *rand.Rand, pats [][]float64) []float64 {
	x := make([]float64, fxDim)
	for i := range x {
		var v float64
		for _, p := range pats {
			v += (0.2 + rng.Float64()) * p[i]
		}
		v = v/float64(len(pats)) + 0.05*rng.Float64()
		x[i] = math.Round(255*math.Min(1, math.Max(0, v))) / 255
	}
	return x
}

func fxPatterns(rng *rand.Rand) [][]float64 {
	pats := make([][]float64, 3)
	for j := range pats {
		p := make([]float64, fxDim)
		cx, cy := rng.Float64()*fxW, rng.Float64()*fxH
		for y := range fxH {
			for x := range fxW {
				dx, dy := float64(x)-cx, float64(y)-cy
				p[y*fxW+x] = math.Exp(-(dx*dx + dy*dy) / 6)
			}
		}
		pats[j] = p
	}
	return pats
}

// makeFixture trains a tiny model and writes into dir: model.grlgq, set/
// (8 PNG images of one set), set-resize/ (the same set as 13x11 colour
// PNG and JPEG images), set.bin and set.txt (the same set in the two
// stdin formats), one.txt (a single image).
func makeFixture(t testing.TB, dir string) { makeFixturePrecision(t, dir, model.Float64) }

// makeFixturePrecision is makeFixture with a model of the given precision.
func makeFixturePrecision(t testing.TB, dir string, prec model.Precision) {
	t.Helper()
	rng := rand.New(rand.NewPCG(2024, 7))
	classes := 3
	pats := make([][][]float64, classes)
	for c := range pats {
		pats[c] = fxPatterns(rng)
	}
	conv, err := subspace.NewConverter(fxDim, fxM, fxD)
	if err != nil {
		t.Fatal(err)
	}
	var xs []*subspace.Subspace
	var ys []int
	for c := range classes {
		for range 8 {
			x := linalg.NewDense(fxDim, fxM)
			for j := range fxM {
				for r, v := range fxImage(rng, pats[c]) {
					x.Set(r, j, v)
				}
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			xs, ys = append(xs, s), append(ys, c)
		}
	}
	o := model.DefaultOptions()
	o.Model = model.Config{SubspaceDim: fxD, PrototypesPerClass: 2, ClassNames: []string{"alpha", "beta", "gamma"}, ImageWidth: fxW, ImageHeight: fxH}
	o.Model.Precision = prec
	o.Train.Epochs, o.Train.Seed, o.Train.Workers = 20, 5, 1
	m, _, err := model.Train(context.Background(), o, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFile(filepath.Join(dir, "model.grlgq")); err != nil {
		t.Fatal(err)
	}
	// The set to classify: 8 images of class 1.
	set := make([][]float64, 8)
	for j := range set {
		set[j] = fxImage(rng, pats[1])
	}
	sd := filepath.Join(dir, "set")
	os.MkdirAll(sd, 0o755)
	for j, x := range set {
		img := image.NewGray(image.Rect(0, 0, fxW, fxH))
		for i, v := range x {
			img.SetGray(i%fxW, i/fxW, color.Gray{Y: uint8(math.Round(255 * v))})
		}
		var b bytes.Buffer
		png.Encode(&b, img)
		writeFile(t, filepath.Join(sd, fmt.Sprintf("img%02d.png", j)), b.Bytes())
	}
	// The same set as colour images of another size (13x11 RGB PNG and
	// JPEG), which the binary converts to gray and resizes to the model's
	// 8x8: the cross-architecture check covers that path too.
	rd := filepath.Join(dir, "set-resize")
	os.MkdirAll(rd, 0o755)
	for j, x := range set {
		img := image.NewRGBA(image.Rect(0, 0, 13, 11))
		for y := range 11 {
			for xx := range 13 {
				v := x[(y*fxH/11)*fxW+xx*fxW/13]
				img.Set(xx, y, color.RGBA{uint8(math.Round(255 * v)), uint8(math.Round(200 * v)), uint8(math.Round(255 * (1 - v))), 255})
			}
		}
		var b bytes.Buffer
		name := fmt.Sprintf("img%02d.png", j)
		if j%2 == 1 {
			name = fmt.Sprintf("img%02d.jpg", j)
			jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
		} else {
			png.Encode(&b, img)
		}
		writeFile(t, filepath.Join(rd, name), b.Bytes())
	}
	var bin bytes.Buffer
	bin.WriteString(rawMagic)
	binary.Write(&bin, binary.LittleEndian, []uint32{fxDim, uint32(len(set))})
	for _, x := range set {
		binary.Write(&bin, binary.LittleEndian, x)
	}
	writeFile(t, filepath.Join(dir, "set.bin"), bin.Bytes())
	writeFile(t, filepath.Join(dir, "set.txt"), textSet(set))
	writeFile(t, filepath.Join(dir, "one.txt"), textSet(set[:1]))
}

func textSet(set [][]float64) []byte {
	var b bytes.Buffer
	b.WriteString("# one image per line\n")
	for _, x := range set {
		for i, v := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFixture writes the CI fixture when -fixture is given (see .ci/edge.sh).
func TestFixture(t *testing.T) {
	if *fixtureOut == "" {
		t.Skip("give -fixture DIR to write the CI fixture")
	}
	if err := os.MkdirAll(*fixtureOut, 0o755); err != nil {
		t.Fatal(err)
	}
	makeFixture(t, *fixtureOut)
}

func runEdge(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	fromDir, stderr, code := runEdge(t, nil, "-model", mp, filepath.Join(dir, "set"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(fromDir, "label 1\nname beta\nmargin ") || strings.Count(fromDir, "\ndistance ") != 6 {
		t.Errorf("folder output:\n%s", fromDir)
	}
	// The three encodings of one set give the same bytes.
	for _, in := range []string{"set.bin", "set.txt"} {
		out, stderr, code := runEdge(t, read(in), "-model", mp, "-")
		if code != 0 || out != fromDir {
			t.Errorf("%s: exit %d %s\n%s\nwant\n%s", in, code, stderr, out, fromDir)
		}
	}
	// JSON carries the same numbers.
	js, _, code := runEdge(t, read("set.bin"), "-model", mp, "-json", "-")
	var r result
	if err := json.Unmarshal([]byte(js), &r); code != 0 || err != nil {
		t.Fatalf("json: exit %d, %v: %s", code, err, js)
	}
	if want := (&r).text(false); string(want) != fromDir {
		t.Errorf("JSON round trip:\n%s\nwant\n%s", want, fromDir)
	}
	// Probabilities and class names, in the text and the JSON.
	if len(r.Probabilities) != 3 || r.ClassNames[1] != "beta" || r.Probabilities[1] < r.Probabilities[0] || r.Probabilities[1] < r.Probabilities[2] ||
		!strings.Contains(fromDir, "\nprobability 1 beta 0.") || !strings.Contains(fromDir, "\nrejected false\n") {
		t.Errorf("probabilities %v of %v:\n%s", r.Probabilities, r.ClassNames, fromDir)
	}
	// Several sets per call: folders and stdin's sets (binary back to
	// back, text separated by "---"), each the same as alone, in order,
	// after a line "set I INPUT" when there are several inputs.
	var bin2, txt2 []byte
	bin2 = append(append(bin2, read("set.bin")...), read("set.bin")...)
	txt2 = append(append(append(txt2, read("set.txt")...), "---\n"...), read("one.txt")...)
	oneOut, _, _ := runEdge(t, read("one.txt"), "-model", mp, "-")
	for _, c := range []struct {
		stdin []byte
		args  []string
		want  []string // each set's output alone
	}{
		{nil, []string{filepath.Join(dir, "set"), filepath.Join(dir, "set-resize")}, []string{fromDir, ""}},
		{bin2, []string{"-"}, []string{fromDir, fromDir}},
		{txt2, []string{filepath.Join(dir, "set"), "-"}, []string{fromDir, fromDir, oneOut}},
	} {
		out, stderr, code := runEdge(t, c.stdin, append([]string{"-model", mp}, c.args...)...)
		blocks := strings.Split(out, "\n\n")
		if code != 0 || len(blocks) != len(c.want) {
			t.Fatalf("%v: exit %d %s\n%s", c.args, code, stderr, out)
		}
		for i, b := range blocks {
			head, rest := fmt.Sprintf("set %d ", i), b
			if len(c.args) > 1 {
				head, rest, _ = strings.Cut(b, "\n")
			}
			if !strings.HasPrefix(head, fmt.Sprintf("set %d ", i)) || c.want[i] != "" && rest+"\n" != c.want[i] && rest != c.want[i] {
				t.Errorf("%v: set %d:\n%s\nwant\n%s", c.args, i, b, c.want[i])
			}
		}
		js, _, code := runEdge(t, c.stdin, append([]string{"-model", mp, "-json"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(js), "\n")
		var last result
		if code != 0 || len(lines) != len(c.want) || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Set != len(c.want)-1 {
			t.Errorf("%v -json: exit %d, %d lines:\n%s", c.args, code, len(lines), js)
		}
	}
	// A second set that fails names itself, after the first was printed
	// (as alone: one input, no "set" line); so do bytes after a binary set
	// that do not start another.
	bad := append(append([]byte{}, read("set.txt")...), "---\n0 1\n"...)
	if out, stderr, code := runEdge(t, bad, "-model", mp, "-"); code != 1 || !strings.Contains(stderr, "set 1 of stdin") || out != fromDir {
		t.Errorf("a bad second set: exit %d %q\n%s", code, stderr, out)
	}
	bad = append(append([]byte{}, bin2...), read("set.txt")...)
	tail := "set 1 of stdin: stdin: bytes after the 8 images that do not start another set (\"#\", not \"GRLGQSET\")\n"
	if out, stderr, code := runEdge(t, bad, "-model", mp, "-"); code != 1 || !strings.HasSuffix(stderr, tail) || out != fromDir+"\n"+fromDir {
		t.Errorf("text after binary sets: exit %d %q\n%s", code, stderr, out)
	}
	// Blank lines and comments after the last "---" end the input as its
	// end does; an empty set between two "---" lines is still an error.
	txtOut, _, _ := runEdge(t, txt2, "-model", mp, "-")
	for _, end := range []string{"---\n\n", "---\n# end\n", "---\n\n# end\n \t\n\n# really", "\n---\n\r\n"} {
		in := append(append([]byte{}, txt2...), end...)
		if out, stderr, code := runEdge(t, in, "-model", mp, "-"); code != 0 || stderr != "" || out != txtOut {
			t.Errorf("%q after the last set: exit %d %q\n%s\nwant\n%s", end, code, stderr, out, txtOut)
		}
	}
	in := append(append([]byte{}, txt2...), "---\n\n---\n"...)
	if out, stderr, code := runEdge(t, in, "-model", mp, "-"); code != 1 || stderr != "grlgq-edge: set 2 of stdin: stdin: line 2: \"---\" before any image of the set\n" || out != txtOut {
		t.Errorf("an empty set after the last: exit %d %q\n%s", code, stderr, out)
	}
	// A read error between sets is an error, not the end of input.
	readErr := errors.New("read failed")
	for _, c := range []struct {
		name string
		set  []byte
	}{
		{"binary", read("set.bin")},
		{"text", append(read("set.txt"), "---\n"...)},
	} {
		var out, errb bytes.Buffer
		stdin := io.MultiReader(bytes.NewReader(c.set), iotest.ErrReader(readErr))
		code := run([]string{"-model", mp, "-"}, stdin, &out, &errb)
		if code != 1 || errb.String() != "grlgq-edge: set 1 of stdin: stdin: read failed\n" || out.String() != fromDir {
			t.Errorf("%s set, then a read error: exit %d %q\n%s", c.name, code, errb.String(), out.String())
		}
	}
	// A single image: θ_1² distances.
	one, stderr, code := runEdge(t, read("one.txt"), "-model", mp, "-")
	if code != 0 || !strings.HasPrefix(one, "label ") {
		t.Errorf("single image: exit %d %s\n%s", code, stderr, one)
	}
	// Errors.
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		msg   string
	}{
		{"", []string{"-model", mp}, 2, "run 'grlgq-edge -h'"},
		{"", []string{"-model", mp, "-", "-"}, 2, "2 times"},
		{"---\n", []string{"-model", mp, "-"}, 1, "before any image"},
		{"", []string{"-model", mp, "-width", "3", dir}, 2, "run 'grlgq-edge -h'"},
		{"0 1\n", []string{"-model", mp, "-"}, 1, "wants D = 64"},
		{"", []string{"-model", mp, "-"}, 1, "no images"},
		{string(read("set.txt")[:200]), []string{"-model", mp, "-"}, 1, "values"},
		{"", []string{"-model", filepath.Join(dir, "set.txt"), "-"}, 1, "not a GRLGQ model"},
		{"", []string{"-model", mp, dir}, 1, "no PNG"},
		{"", []string{"-model", mp, "-width", "4", "-height", "4", filepath.Join(dir, "set")}, 1, "wants D = 64: use -width 8 -height 8"},
	} {
		_, stderr, code := runEdge(t, []byte(c.stdin), c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	// Images twice the model's size are resized to the size it recorded.
	big := filepath.Join(dir, "big")
	os.MkdirAll(big, 0o755)
	entries, _ := os.ReadDir(filepath.Join(dir, "set"))
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, "set", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		small, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		b := small.Bounds()
		up := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
		for y := 0; y < 2*b.Dy(); y++ {
			for x := 0; x < 2*b.Dx(); x++ {
				up.Set(x, y, small.At(x/2, y/2))
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, up)
		writeFile(t, filepath.Join(big, e.Name()), buf.Bytes())
	}
	if out, stderr, code := runEdge(t, nil, "-model", mp, big); code != 0 || !strings.HasPrefix(out, "label 1\n") {
		t.Errorf("16x16 images with an 8x8 model: exit %d %s\n%s", code, stderr, out)
	}
	two := bytes.Join(bytes.Split(read("set.txt"), []byte("\n"))[:3], []byte("\n"))
	if _, stderr, code := runEdge(t, two, "-model", mp, "-"); code != 1 || !strings.Contains(stderr, "fewer images") {
		t.Errorf("2 images for d = 3: exit %d %q", code, stderr)
	}
}

// TestStdinErrorLine: an error on stdin is one line of at most 200
// bytes, whatever the input: random bytes and the longest value quote an
// excerpt of it (maxExcerpt), a short value in full, as strconv does; an
// error that says "out of range" says the range.
func TestStdinErrorLine(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	header := func(d, m uint32) []byte {
		var b bytes.Buffer
		b.WriteString(rawMagic)
		binary.Write(&b, binary.LittleEndian, []uint32{d, m})
		return b.Bytes()
	}
	type errCase struct {
		name  string
		stdin []byte
		want  []string // in the error
	}
	cases := []errCase{
		{"longest value, escaped", bytes.Repeat([]byte{0x80}, maxField), []string{`parsing "` + strings.Repeat(`\x80`, maxExcerpt/4) + `"...: invalid syntax`}},
		{"longest value, text", append(bytes.Repeat([]byte("7"), maxField-1), 'x'), []string{`parsing "` + strings.Repeat("7", maxExcerpt) + `"...: invalid syntax`}},
		{"short value", []byte("abc\n"), []string{`grlgq-edge: stdin: line 1 value 1: strconv.ParseFloat: parsing "abc": invalid syntax` + "\n"}},
		{"huge value", []byte("1 1e400\n"), []string{`line 1 value 2: strconv.ParseFloat: parsing "1e400": value out of range: a float64 is at most 1.7976931348623157e+308 in magnitude`}},
		{"huge count", header(fxDim, math.MaxUint32), []string{"stdin: 4294967295 images of 64 pixels: out of range: want 1 to 2097152 images of D = 64 (at most 134217728 values per set, 2^27)"}},
		{"no image", header(fxDim, 0), []string{"stdin: 0 images of 64 pixels: out of range: want 1 to 2097152"}},
	}
	for seed := range uint64(8) {
		b := make([]byte, 4096)
		rng := rand.New(rand.NewPCG(seed, 11))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		cases = append(cases, errCase{fmt.Sprintf("random bytes %d", seed), b, nil})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runEdge(t, c.stdin, "-model", mp, "-")
			if code != 1 || out != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || len(stderr) > 200 {
				t.Errorf("exit %d, %d bytes of output, stderr (%d bytes) %q; want exit 1 and one line of at most 200 bytes", code, len(out), len(stderr), stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q\nwant %q in it", stderr, w)
				}
			}
		})
	}
}

// TestDeps checks that the edge binary links no training driver, plotting,
// data-set loader (MAT, npy, CSV, IDX: the dataset package root) or test
// oracle, with and without -tags purego.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"github.com/grlgq/grlgq/dataset", // the loaders' root: MAT, npy, CSV, IDX
		"github.com/grlgq/grlgq/paper",
		"github.com/grlgq/grlgq/hard",
		"github.com/grlgq/grlgq/internal/reference",
		"github.com/grlgq/grlgq/cmd/internal/plot",
		"github.com/grlgq/grlgq/dataset/digits",
		"github.com/grlgq/grlgq/selection",
		"github.com/grlgq/grlgq/cmd/grlgq",
		"gonum.org/v1/plot",
		"gonum.org/v1/gonum",
		"encoding/csv",
		"compress/gzip",
		"github.com/sbinet/npyio",
		"github.com/kshedden/gonpy",
		"github.com/pa-m/sklearn",
		"net", "net/http", "os/exec", "testing",
	}
	for _, tags := range []string{"", "purego"} {
		cmd := exec.Command("go", "list", "-deps", "-tags", tags, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps := strings.Fields(string(out))
		for _, d := range deps {
			for _, f := range forbidden {
				// dataset/imageset (std, pixels, x/image) is allowed; its parent is not.
				sub := strings.HasPrefix(d, f+"/") && f != "net" && f != "github.com/grlgq/grlgq/dataset"
				if d == f || sub {
					t.Errorf("tags %q: the edge binary depends on %s", tags, d)
				}
			}
			if strings.HasPrefix(d, "runtime/cgo") {
				t.Errorf("tags %q: cgo (%s)", tags, d)
			}
		}
	}
}

// TestClassifyFloat32 runs the binary on a Precision Float32 model (a
// version 3 file of float32 prototypes): it loads, classifies the set as
// the float64 model does, and its file is about half the size.
func TestClassifyFloat32(t *testing.T) {
	d64, d32 := t.TempDir(), t.TempDir()
	makeFixture(t, d64)
	makeFixturePrecision(t, d32, model.Float32)
	st64, err := os.Stat(filepath.Join(d64, "model.grlgq"))
	if err != nil {
		t.Fatal(err)
	}
	st32, err := os.Stat(filepath.Join(d32, "model.grlgq"))
	if err != nil {
		t.Fatal(err)
	}
	if st32.Size() > st64.Size()*6/10 {
		t.Errorf("float32 model file %d bytes, float64 %d", st32.Size(), st64.Size())
	}
	out32, stderr, code := runEdge(t, nil, "-model", filepath.Join(d32, "model.grlgq"), filepath.Join(d32, "set"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out32, "label 1\nname beta\n") {
		t.Errorf("float32 model output:\n%s", out32)
	}
}

// TestSizeMessage: an image size in a message is written HxW, as the rest
// of the project writes sizes (imageset.FormatSize), and says so, since
// the binary's own flags are -width and -height: a PNG 10 pixels wide and
// 5 high is "5x10" to a model that records no image size and wants D = 64.
func TestSizeMessage(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	conv, err := subspace.NewConverter(fxDim, fxM, fxD)
	if err != nil {
		t.Fatal(err)
	}
	var xs []*subspace.Subspace
	var ys []int
	for c := range 2 {
		for range 4 {
			x := linalg.NewDense(fxDim, fxM)
			for r := range fxDim {
				for j := range fxM {
					x.Set(r, j, rng.Float64())
				}
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			xs, ys = append(xs, s), append(ys, c)
		}
	}
	o := model.DefaultOptions()
	o.Model = model.Config{SubspaceDim: fxD, PrototypesPerClass: 1} // no image size
	o.Train.Epochs, o.Train.Seed, o.Train.Workers = 2, 1, 1
	m, _, err := model.Train(context.Background(), o, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "model.grlgq")
	if err := m.SaveFile(mp); err != nil {
		t.Fatal(err)
	}
	sd := filepath.Join(dir, "set")
	os.MkdirAll(sd, 0o755)
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 10, 5)))
	writeFile(t, filepath.Join(sd, "wide.png"), b.Bytes())

	_, stderr, code := runEdge(t, nil, "-model", mp, sd)
	want := "wide.png: image of 5x10 pixels (HxW, D = 50), the model wants D = 64: use -width 8 -height 8 (or another W and H with W·H = 64)"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	_, stderr, code = runEdge(t, nil, "-model", mp, "-width", "0", "-height", "5", sd)
	if want := "(got -width 0 -height 5)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("-width 0 -height 5: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}
