package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// result is the outcome of one run of the program.
type result struct {
	code           int
	stdout, stderr string
}

// grlgq runs the program with args, failing the test if it takes longer
// than a minute (a hang must not eat the whole test budget).
func grlgq(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb) }()
	select {
	case code := <-done:
		return result{code, out.String(), errb.String()}
	case <-time.After(60 * time.Second):
		t.Fatalf("grlgq %s: no answer after 60 s", strings.Join(args, " "))
		return result{}
	}
}

// ok runs the program and fails the test unless it exits 0.
func ok(t *testing.T, args ...string) result {
	t.Helper()
	r := grlgq(t, args...)
	if r.code != 0 {
		t.Fatalf("grlgq %s: exit %d\nstderr: %s\nstdout: %s", strings.Join(args, " "), r.code, r.stderr, r.stdout)
	}
	return r
}

// fails runs the program and checks it exits with code, printing exactly
// one line "grlgq: ..." on stderr (for code 1) that contains every want.
func fails(t *testing.T, code int, want []string, args ...string) result {
	t.Helper()
	r := grlgq(t, args...)
	if r.code != code {
		t.Fatalf("grlgq %s: exit %d, want %d\nstderr: %s\nstdout: %s", strings.Join(args, " "), r.code, code, r.stderr, r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "grlgq: ") {
		t.Errorf("grlgq %s: stderr does not start with \"grlgq: \": %q", strings.Join(args, " "), r.stderr)
	}
	if code == 1 {
		if strings.Count(r.stderr, "\n") != 1 || !strings.HasSuffix(r.stderr, "\n") {
			t.Errorf("grlgq %s: stderr is not one line: %q", strings.Join(args, " "), r.stderr)
		}
		if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("grlgq %s: stderr looks like a panic: %q", strings.Join(args, " "), r.stderr)
		}
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("grlgq %s: stderr %q does not mention %q", strings.Join(args, " "), r.stderr, w)
		}
	}
	return r
}

// decodeJSON parses out as one JSON object and checks it has the keys.
func decodeJSON(t *testing.T, out string, keys ...string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("output is not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("output holds more than one JSON value:\n%s", out)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no key %q: %s", k, out)
		}
	}
	return m
}

// fraction returns m[key] as a number in [0, 1].
func fraction(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok || v < 0 || v > 1 {
		t.Fatalf("%s = %v, want a fraction in [0, 1]", key, m[key])
	}
	return v
}

// Synthetic data: C classes of 8x8 images, each class a few template
// strokes plus noise, so that sets of one class span similar subspaces.
const synthSide = 8

func synthImages(classes, perClass int, seed uint64) (imgs [][]float64, labels []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	templates := make([][][]float64, classes)
	for c := range templates {
		for k := 0; k < 4; k++ {
			t := make([]float64, synthSide*synthSide)
			for i := range t {
				// Class-specific smooth pattern.
				x, y := float64(i%synthSide), float64(i/synthSide)
				t[i] = math.Max(0, math.Sin(float64(c+1)*x*0.7+float64(k)*y*0.5+float64(c)))
			}
			templates[c] = append(templates[c], t)
		}
	}
	for c := 0; c < classes; c++ {
		for n := 0; n < perClass; n++ {
			img := make([]float64, synthSide*synthSide)
			for _, t := range templates[c] {
				w := rng.Float64()
				for i := range img {
					img[i] += w * t[i]
				}
			}
			top := 0.0
			for i := range img {
				img[i] = math.Max(0, img[i]+0.05*rng.NormFloat64())
				top = math.Max(top, img[i])
			}
			for i := range img {
				img[i] /= top
			}
			imgs = append(imgs, img)
			labels = append(labels, c)
		}
	}
	return imgs, labels
}

// writeCSV writes synthetic images as CSV (pixels 0..16, then the label).
func writeCSV(t *testing.T, path string, classes, perClass int, seed uint64) {
	t.Helper()
	imgs, labels := synthImages(classes, perClass, seed)
	var b strings.Builder
	for i, img := range imgs {
		for _, v := range img {
			fmt.Fprintf(&b, "%d,", int(math.Round(16*v)))
		}
		fmt.Fprintf(&b, "%d\n", labels[i])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeIDX writes synthetic images and labels as IDX files; nLabels < 0
// means one label per image.
func writeIDX(t *testing.T, images, labelsPath string, classes, perClass, nLabels int) {
	t.Helper()
	imgs, labels := synthImages(classes, perClass, 3)
	var ib, lb bytes.Buffer
	binary.Write(&ib, binary.BigEndian, []uint32{0x803, uint32(len(imgs)), synthSide, synthSide})
	for _, img := range imgs {
		for _, v := range img {
			ib.WriteByte(byte(math.Round(255 * v)))
		}
	}
	if nLabels < 0 {
		nLabels = len(labels)
	}
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(nLabels)})
	for i := 0; i < nLabels; i++ {
		lb.WriteByte(byte(labels[i%len(labels)]))
	}
	if err := os.WriteFile(images, ib.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labelsPath, lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFolder writes a folder tree root/<class>/<set>/<image>.png of
// classes x sets image sets of m gray 8x8 images each.
func writeFolder(t *testing.T, root string, classes, sets, m int) {
	t.Helper()
	imgs, labels := synthImages(classes, sets*m, 5)
	count := map[int]int{}
	for i, img := range imgs {
		c := labels[i]
		k := count[c]
		count[c]++
		dir := filepath.Join(root, fmt.Sprintf("class%c", 'a'+c), fmt.Sprintf("obj%d", k/m))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writePNG(t, filepath.Join(dir, fmt.Sprintf("view%02d.png", k%m)), img)
	}
}

func writePNG(t *testing.T, path string, img []float64) {
	t.Helper()
	g := image.NewGray(image.Rect(0, 0, synthSide, synthSide))
	for i, v := range img {
		g.SetGray(i%synthSide, i/synthSide, color.Gray{Y: uint8(math.Round(255 * v))})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeNPY writes n random orthonormal D x d bases (two classes, each near
// its own subspace) and their labels as .npy files.
func writeNPY(t *testing.T, data, labels string, n, dim, d int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	var vals []float64
	var labs []int64
	for i := 0; i < n; i++ {
		c := i % 2
		b := make([][]float64, d) // columns
		for j := range b {
			col := make([]float64, dim)
			for r := range col {
				col[r] = 0.3 * rng.NormFloat64()
			}
			col[(c*d+j)%dim] += 3
			// Gram–Schmidt against the previous columns.
			for _, q := range b[:j] {
				dot := 0.0
				for r := range col {
					dot += col[r] * q[r]
				}
				for r := range col {
					col[r] -= dot * q[r]
				}
			}
			nrm := 0.0
			for _, v := range col {
				nrm += v * v
			}
			for r := range col {
				col[r] /= math.Sqrt(nrm)
			}
			b[j] = col
		}
		for r := 0; r < dim; r++ {
			for j := 0; j < d; j++ {
				vals = append(vals, b[j][r])
			}
		}
		labs = append(labs, int64(c))
	}
	writeNPYFile(t, data, "<f8", fmt.Sprintf("(%d, %d, %d)", n, dim, d), vals)
	lb := new(bytes.Buffer)
	binary.Write(lb, binary.LittleEndian, labs)
	writeNPYRaw(t, labels, "<i8", fmt.Sprintf("(%d,)", n), lb.Bytes())
}

func writeNPYFile(t *testing.T, path, descr, shape string, vals []float64) {
	b := new(bytes.Buffer)
	binary.Write(b, binary.LittleEndian, vals)
	writeNPYRaw(t, path, descr, shape, b.Bytes())
}

func writeNPYRaw(t *testing.T, path, descr, shape string, payload []byte) {
	t.Helper()
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(payload)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkPNG decodes a PNG file and returns its size.
func checkPNG(t *testing.T, path string) image.Point {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Size()
}
