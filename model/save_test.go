package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// trainedModel returns a small trained model with class names and local
// relevances (so every optional part of the format is present).
func trainedModel(t testing.TB, rel RelevanceKind) *Model {
	t.Helper()
	xs, ys := synth(t, 31, 16, 3, 3, 6, 0.3)
	cfg := opts{Config: Config{Relevance: rel, ClassNames: []string{"a", "bé", ""}, PrototypesOfClass: []int{1, 2, 1}, ImageWidth: 8, ImageHeight: 2}, TrainConfig: TrainConfig{Epochs: 3, Seed: 5, Gamma: 1e-2, Schedule: ScheduleAnneal, Activation: Sigmoid, Beta: 2.5, ClassWeights: true}}
	m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.WithPredictConfig(legacyPredict(PredictConfig{RejectMargin: 0.05, Temperature: 0.3})); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameModel(t *testing.T, a, b *Model) {
	t.Helper()
	if a.dim != b.dim || a.d != b.d || a.classes != b.classes || a.epochs != b.epochs || len(a.protos) != len(b.protos) {
		t.Fatalf("shapes differ")
	}
	for k := range a.protos {
		for r := 0; r < a.dim; r++ {
			for c, v := range a.protos[k].Row(r) {
				if math.Float64bits(v) != math.Float64bits(b.protos[k].At(r, c)) {
					t.Fatalf("prototype %d (%d, %d) differs", k, r, c)
				}
			}
		}
	}
	for i, v := range a.lambda {
		if math.Float64bits(v) != math.Float64bits(b.lambda[i]) {
			t.Fatalf("relevance %d differs", i)
		}
	}
	if ca, cb := a.Config(), b.Config(); !reflect.DeepEqual(ca, cb) {
		t.Fatalf("configs differ:\n%+v\n%+v", ca, cb)
	}
	ta, tb := a.TrainConfig(), b.TrainConfig()
	ta.Workers, tb.Workers = 0, 0
	ta.MinDelta, tb.MinDelta = 0, 0
	ta.AverageLast, tb.AverageLast = 0, 0
	// (json.Marshal cannot compare them: it refuses the func field.)
	if ta.OnEpoch != nil || tb.OnEpoch != nil || !reflect.DeepEqual(ta, tb) {
		t.Fatalf("training configs differ:\n%+v\n%+v", ta, tb)
	}
	if pa, pb := a.PredictConfig(), b.PredictConfig(); pa != pb {
		t.Fatalf("prediction configs differ: %+v, %+v", pa, pb)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal, RelevanceNone} {
		m := trainedModel(t, rel)
		b1 := modelBytes(t, m)
		m2, err := Load(bytes.NewReader(b1))
		if err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, m2)
		if b2 := modelBytes(t, m2); !bytes.Equal(b1, b2) {
			t.Fatal("save(load(save(m))) != save(m)")
		}
		// MarshalBinary / UnmarshalBinary.
		var m3 Model
		if err := m3.UnmarshalBinary(b1); err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, &m3)
		if err := new(Model).UnmarshalBinary(append(b1, 0)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("trailing byte: %v", err)
		}
		// JSON round trip is bit for bit too.
		jb, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var m4 Model
		if err := json.Unmarshal(jb, &m4); err != nil {
			t.Fatal(err)
		}
		sameModel(t, m, &m4)
		if !bytes.Equal(modelBytes(t, &m4), b1) {
			t.Error("JSON round trip changed the binary encoding")
		}
		// Predictions of the loaded model equal the original's.
		xs, _ := synth(t, 32, 16, 3, 3, 2, 0.3)
		p1, err := m.Predict(Set(xs[0]))
		if err != nil {
			t.Fatal(err)
		}
		p2, err := m2.Predict(Set(xs[0]))
		if err != nil {
			t.Fatal(err)
		}
		for k := range p1.Distances {
			if p1.Distances[k] != p2.Distances[k] {
				t.Fatal("loaded model predicts different distances")
			}
		}
		if m2.ClassName(1) != "bé" || m2.PredictConfig().RejectMargin != 0.05 {
			t.Error("class names or prediction options lost")
		}
	}
}

func TestJSONShape(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Format     string        `json:"format"`
		Prototypes [][][]float64 `json:"prototypes"`
		Labels     []int         `json:"labels"`
		Relevances []float64     `json:"relevances"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Format != "grlgq-model" || len(v.Prototypes) != 4 || len(v.Prototypes[0]) != 16 || len(v.Prototypes[0][0]) != 3 || len(v.Relevances) != 3 {
		t.Errorf("unexpected JSON layout: %s", b[:200])
	}
	if v.Prototypes[2][5][1] != m.protos[2].At(5, 1) || v.Labels[2] != 1 {
		t.Error("JSON prototype entry differs")
	}
	var bad Model
	if err := json.Unmarshal(bytes.Replace(b, []byte(`"grlgq-model"`), []byte(`"other"`), 1), &bad); !errors.Is(err, ErrFormat) {
		t.Errorf("wrong format: %v", err)
	}
	if err := json.Unmarshal(bytes.Replace(b, []byte(`"relevance":"global"`), []byte(`"relevance":"local"`), 1), &bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("inconsistent relevances: %v", err)
	}
}

func TestSaveFileAtomic(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.grlgq")
	if err := os.WriteFile(path, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, m, got)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// A directory that does not exist: an error, nothing written.
	if err := m.SaveFile(filepath.Join(dir, "nope", "m")); err == nil {
		t.Error("SaveFile into a missing directory succeeded")
	}
}

// reseal recomputes the checksum of a modified encoding.
func reseal(b []byte) []byte {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], castagnoli))
	return b
}

func TestLoadRejects(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceLocal))
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	put32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return reseal(b) }
	}
	put64 := func(off int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return reseal(b) }
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"wrong magic", mod(func(b []byte) []byte { b[0] = 'X'; return b }), ErrFormat},
		{"short wrong magic", []byte("PK\x03"), ErrFormat},
		{"short header", good[:20], ErrTruncated},
		{"version 4", mod(put32(8, 4)), ErrVersion},
		{"version 0", mod(put32(8, 0)), ErrVersion},
		{"image size not D", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[headerSize+configSizeV1:], 4) // 4 x 2 != 16
			return reseal(b)
		}), ErrCorrupt},
		{"image width without height", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[headerSize+configSizeV1+4:], 0)
			return reseal(b)
		}), ErrCorrupt},
		{"truncated payload", good[:len(good)/2], ErrTruncated},
		{"missing checksum", good[:len(good)-1], ErrTruncated},
		{"flipped bit", mod(func(b []byte) []byte { b[len(b)/2] ^= 4; return b }), ErrChecksum},
		{"bad checksum", mod(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), ErrChecksum},
		{"huge D", mod(put32(12, 1<<31)), ErrCorrupt},
		{"zero d", mod(put32(16, 0)), ErrCorrupt},
		{"d > D", mod(put32(16, 17)), ErrCorrupt},
		{"huge p", mod(put32(20, 1<<30)), ErrCorrupt},
		{"one class", mod(put32(24, 1)), ErrCorrupt},
		{"unknown flag", mod(put32(28, 8)), ErrCorrupt},
		{"huge payload", mod(put64(40, 1<<40)), ErrCorrupt},
		{"payload too short for shapes", mod(put64(40, 100)), ErrCorrupt},
		{"huge p, payload fits the limit", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[20:], 50000)
			binary.LittleEndian.PutUint64(b[40:], 20000000)
			return reseal(b)
		}), ErrTruncated},
		// d = 1: a payload under the 1 GiB file limit whose prototypes
		// would take 8x that in memory once padded to kernels.Stride(1).
		{"d=1 prototypes too large once padded", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[12:], 1<<20) // D
			binary.LittleEndian.PutUint32(b[16:], 1)     // d
			binary.LittleEndian.PutUint32(b[20:], 100)   // p
			binary.LittleEndian.PutUint32(b[24:], 2)     // C
			binary.LittleEndian.PutUint32(b[28:], 0)
			binary.LittleEndian.PutUint64(b[40:], uint64(configSize+4*100+8*100*(1<<20)+8))
			return reseal(b)
		}), ErrCorrupt},
		{"label out of range", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[headerSize+configSize:], 7)
			return reseal(b)
		}), ErrCorrupt},
		{"negative relevance", mod(func(b []byte) []byte {
			off := len(b) - 4 - 8*4*16*3 - 8*4*3 // first relevance
			binary.LittleEndian.PutUint64(b[off:], math.Float64bits(-0.5))
			return reseal(b)
		}), ErrCorrupt},
		{"NaN in a prototype", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-12:], math.Float64bits(math.NaN()))
			return reseal(b)
		}), ErrCorrupt},
		{"non-orthonormal prototype", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[len(b)-12:], math.Float64bits(3))
			return reseal(b)
		}), ErrCorrupt},
		{"unknown init kind", mod(func(b []byte) []byte { b[headerSize+20] = 9; return reseal(b) }), ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(bytes.NewReader(c.data))
			if err == nil || m != nil {
				t.Fatalf("accepted")
			}
			if strings.Contains(c.name, "once padded") && !strings.Contains(err.Error(), "in memory") {
				t.Fatalf("error %v, want the in-memory bound", err)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestLoadHostileAllocation: a header declaring a 1 GiB payload followed by
// a few bytes must fail without allocating the declared size.
func TestLoadHostileAllocation(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	b := append([]byte(nil), good[:headerSize+64]...)
	binary.LittleEndian.PutUint32(b[12:], 1<<20) // D
	binary.LittleEndian.PutUint32(b[16:], 32)    // d
	binary.LittleEndian.PutUint32(b[20:], 2)     // p
	binary.LittleEndian.PutUint32(b[24:], 2)     // C
	binary.LittleEndian.PutUint32(b[28:], 0)     // no names, no counts
	binary.LittleEndian.PutUint64(b[40:], uint64(configSize+8+8*32+8*2*(1<<20)*32))
	var before, after runtimeMem
	before.read()
	_, err := Load(bytes.NewReader(b))
	after.read()
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("error %v, want ErrTruncated", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("Load allocated %d bytes for a %d-byte file", grew, len(b))
	}
}

// FuzzLoad: no input makes Load panic or hang; whatever it accepts
// re-encodes to the same bytes and loads again.
func FuzzLoad(f *testing.F) {
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal} {
		f.Add(modelBytes(f, trainedModel(f, rel)))
	}
	ch := trainedModel(f, RelevanceLocal).clone() // a version 3 file
	ch.cfg.Distance = Chordal
	f.Add(modelBytes(f, ch))
	if mm, err := trainedModel(f, RelevanceGlobal).WithMetadata(map[string]string{"tool": "grlgq", "data.sha256": "00ff"}); err == nil {
		f.Add(modelBytes(f, mm)) // version 3, metadata
	}
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		m, err := Load(r)
		if err != nil {
			if m != nil {
				t.Fatal("model with error")
			}
			return
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(data[8:]); v == 2 || v == 3 {
			if !bytes.Equal(b, data[:len(b)]) {
				t.Fatal("accepted input does not re-encode to itself")
			}
			if r.Len() != len(data)-len(b) {
				t.Fatalf("Load left %d bytes of %d after a model of %d", r.Len(), len(data), len(b))
			}
		} else if binary.LittleEndian.Uint32(data[8:]) != 1 || m.Config().ImageWidth != 0 {
			t.Fatal("accepted an old version other than 1, or a version 1 file with an image size")
		}
		m2, err := Load(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b2, _ := m2.MarshalBinary(); !bytes.Equal(b, b2) {
			t.Fatal("re-encoding is not stable")
		}
	})
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// TestWriteFuzzCorpus regenerates testdata/fuzz/FuzzLoad (run with
// GRLGQ_WRITE_CORPUS=1 after a format change).
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("GRLGQ_WRITE_CORPUS") == "" {
		t.Skip("set GRLGQ_WRITE_CORPUS=1 to regenerate the fuzz seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	xs, ys := synth(t, 41, 6, 2, 2, 3, 0.3)
	small := func(cfg opts) []byte {
		m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		return modelBytes(t, m)
	}
	good := small(opts{Config: Config{ImageWidth: 3, ImageHeight: 2}, TrainConfig: TrainConfig{Epochs: 1}})
	local := small(opts{Config: Config{Relevance: RelevanceLocal, ClassNames: []string{"x", "y"}, PrototypesOfClass: []int{2, 1}}, TrainConfig: TrainConfig{Epochs: 1}})
	seeds := map[string][]byte{
		"valid-global-v1": toV1(t, good),
		"valid-global":    good,
		"valid-local":     local,
		"truncated":       good[:len(good)/2],
		"header-only":     good[:headerSize],
		"bad-checksum":    append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1),
		"wrong-magic":     append([]byte("GRLGQMDX"), good[8:]...),
		"huge-shape":      reseal(append(append(append([]byte(nil), good[:12]...), 0xff, 0xff, 0xff, 0x7f), good[16:]...)),
		"empty":           {},
	}
	for name, b := range seeds {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// toV1 rewrites a version-2 encoding as version 1 (no image size), as the
// package wrote before image sizes were recorded.
func toV1(t testing.TB, b []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	if le.Uint32(b[8:]) != 2 {
		t.Fatalf("not a version 2 encoding")
	}
	out := append([]byte(nil), b[:headerSize+configSizeV1]...)
	out = append(out, b[headerSize+configSize:]...)
	le.PutUint32(out[8:], 1)
	le.PutUint64(out[40:], le.Uint64(b[40:])-(configSize-configSizeV1))
	return reseal(out)
}

// TestImageSize: the recorded image size is checked against D, kept by
// Continue, saved and loaded (binary and JSON); files of version 1 (no
// image size) still load, as 0x0, and re-save as version 2.
func TestImageSize(t *testing.T) {
	xs, ys := synth(t, 31, 16, 3, 3, 6, 0.3)
	ctx := context.Background()
	for _, c := range []struct{ w, h int }{{4, 3}, {4, 0}, {0, 4}, {-4, -4}, {1 << 20, 1 << 20}} {
		if _, err := Init(legacyOptions(Config{ImageWidth: c.w, ImageHeight: c.h}, TrainConfig{}), Sets(xs), ys); !errors.Is(err, ErrConfig) {
			t.Errorf("image size width %d height %d for D=16: %v, want ErrConfig", c.w, c.h, err)
		}
	}
	m, _, err := Train(ctx, legacyOptions(Config{ImageWidth: 2, ImageHeight: 8}, TrainConfig{Epochs: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := m.ImageSize(); w != 2 || h != 8 {
		t.Fatalf("ImageSize width %d height %d, want width 8 height 2", w, h)
	}
	// Continue keeps the model's size, whatever cfg says.
	m2, _, err := Continue(ctx, m, legacyTrain(TrainConfig{Epochs: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := m2.ImageSize(); w != 2 || h != 8 {
		t.Errorf("Continue changed the image size to width %d height %d", w, h)
	}
	// A model without one takes one by WithImageSize (checked against D).
	m0, _, err := Train(ctx, legacyOptions(Config{}, TrainConfig{Epochs: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := m0.ImageSize(); w != 0 || h != 0 {
		t.Errorf("unknown image size is width %d height %d", w, h)
	}
	m3, err := m0.WithImageSize(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := m3.ImageSize(); w != 4 || h != 4 {
		t.Errorf("WithImageSize did not record the image size: width %d height %d", w, h)
	}
	if w, h := m0.ImageSize(); w != 0 || h != 0 {
		t.Errorf("WithImageSize changed its receiver: width %d height %d", w, h)
	}
	if !bytes.Equal(modelBytes(t, m3)[:headerSize+configSizeV1], modelBytes(t, m0)[:headerSize+configSizeV1]) {
		t.Error("WithImageSize changed more than the image size")
	}
	for _, c := range []struct{ w, h int }{{5, 4}, {4, 0}, {16, 16}} {
		if _, err := m0.WithImageSize(c.w, c.h); !errors.Is(err, ErrConfig) {
			t.Errorf("WithImageSize(%d, %d) for D=16: %v, want ErrConfig", c.w, c.h, err)
		}
	}
	if _, err := m.WithImageSize(4, 4); !errors.Is(err, ErrConfig) {
		t.Errorf("WithImageSize(4, 4) of a 2x8 model: %v, want ErrConfig", err)
	}
	if m4, err := m.WithImageSize(2, 8); err != nil || !bytes.Equal(modelBytes(t, m4), modelBytes(t, m)) {
		t.Errorf("WithImageSize of the model's own size: %v", err)
	}

	// Binary: version 2 keeps it; version 1 loads as unknown.
	b2 := modelBytes(t, m)
	if v := binary.LittleEndian.Uint32(b2[8:]); v != 2 {
		t.Fatalf("saved version %d", v)
	}
	got, err := Load(bytes.NewReader(b2))
	if err != nil {
		t.Fatal(err)
	}
	sameModel(t, m, got)
	old, err := Load(bytes.NewReader(toV1(t, b2)))
	if err != nil {
		t.Fatalf("version 1: %v", err)
	}
	if w, h := old.ImageSize(); w != 0 || h != 0 {
		t.Errorf("version 1 file loads with image size width %d height %d", w, h)
	}
	want := m.Config()
	want.ImageWidth, want.ImageHeight = 0, 0
	if gc := old.Config(); !reflect.DeepEqual(gc, want) {
		t.Errorf("version 1 config %+v, want %+v", gc, want)
	}
	wantT := m.TrainConfig()
	wantT.Workers = 0
	if gt := old.TrainConfig(); !reflect.DeepEqual(gt, wantT) || old.PredictConfig() != m.PredictConfig() {
		t.Errorf("version 1 training config %+v, want %+v", gt, wantT)
	}
	// Re-saved as version 2, it loads again.
	if _, err := Load(bytes.NewReader(modelBytes(t, old))); err != nil {
		t.Fatal(err)
	}
	// JSON: version 2 keeps it; a version 1 export (no image fields) loads.
	jb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(jb, []byte(`"image_width":2,"image_height":8`)) || !bytes.Contains(jb, []byte(`"version":2`)) {
		t.Errorf("JSON lacks the image size or version 2: %.300s", jb)
	}
	var jm Model
	if err := json.Unmarshal(jb, &jm); err != nil {
		t.Fatal(err)
	}
	sameModel(t, m, &jm)
	j1 := bytes.Replace(bytes.Replace(jb, []byte(`,"image_width":2,"image_height":8`), nil, 1), []byte(`"version":2`), []byte(`"version":1`), 1)
	var jm1 Model
	if err := json.Unmarshal(j1, &jm1); err != nil {
		t.Fatalf("version 1 JSON: %v", err)
	}
	if w, h := jm1.ImageSize(); w != 0 || h != 0 {
		t.Errorf("version 1 JSON loads with image size width %d height %d", w, h)
	}
	var bad Model
	if err := json.Unmarshal(bytes.Replace(jb, []byte(`"version":2`), []byte(`"version":4`), 1), &bad); !errors.Is(err, ErrVersion) {
		t.Errorf("JSON version 4: %v", err)
	}
	if err := json.Unmarshal(bytes.Replace(jb, []byte(`"image_width":2`), []byte(`"image_width":3`), 1), &bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("JSON image size not D: %v", err)
	}
}

// TestLoadVersion1File loads testdata/v1-global.grlgq, a file written by
// the package before version 2 (the old fuzz seed valid-global).
func TestLoadVersion1File(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v1-global.grlgq"))
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(b[8:]) != 1 {
		t.Fatal("testdata/v1-global.grlgq is not a version 1 file")
	}
	m, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := m.ImageSize(); w != 0 || h != 0 || m.Dim() != 6 || m.NumPrototypes() != 2 {
		t.Errorf("loaded D=%d p=%d image width %d height %d", m.Dim(), m.NumPrototypes(), w, h)
	}
}
