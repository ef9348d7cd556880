package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The golden model files of docs/model-format.md. Regenerate them (after a
// deliberate format change, with a new version number) with
//
//	go test ./model -run Format -update-golden
var updateGolden = flag.Bool("update-golden", false, "rewrite model/testdata/*.grlgq golden files")

// goldenModel is the content of a golden file, written out field by field.
type goldenModel struct {
	file    string
	version uint32
	dim, d  int
	classes int
	labels  []int
	epochs  uint64
	cfg     opts // the stored fields only
	lambda  []float64
	protos  [][]float64 // p prototypes, D*d values each, row-major
}

// The prototypes: orthonormal columns whose values are exact in binary.
var (
	protoA = []float64{ // columns e1, e2
		1, 0,
		0, 1,
		0, 0,
		0, 0}
	protoB = []float64{ // columns (0, 0, 0.6, 0.8), (0, 0, 0.8, -0.6)
		0, 0,
		0, 0,
		0.6, 0.8,
		0.8, -0.6}
	protoC = []float64{ // columns (0.5, 0.5, 0.5, 0.5), (0.5, -0.5, 0.5, -0.5)
		0.5, 0.5,
		0.5, -0.5,
		0.5, 0.5,
		0.5, -0.5}
)

func goldenConfig() opts {
	return opts{Config: Config{SubspaceDim: 2, PrototypesPerClass: 1, Relevance: RelevanceGlobal}, TrainConfig: TrainConfig{StepEvery: 10, Epochs: 7, Patience: 3, Init: InitPCA, Schedule: ScheduleStep, Activation: Sigmoid, ClassWeights: true, InitNoise: 1e-4, Eta: 0.05, Gamma: 1e-4, Tau: 10, Beta: 2, RelevanceFloor: 1e-4, ValidationFraction: 0.25, Seed: 42}, PredictConfig: PredictConfig{Temperature: 0.1, RejectMargin: 0.125}}
}

// goldenModels: version 1 (global relevances, no names), version 2 with
// class names and an image size, version 2 with local relevances and
// per-class prototype counts.
func goldenModels() []goldenModel {
	v1 := goldenModel{file: "golden-v1.grlgq", version: 1, dim: 4, d: 2, classes: 2, labels: []int{0, 1}, epochs: 7,
		cfg: goldenConfig(), lambda: []float64{0.75, 0.25}, protos: [][]float64{protoA, protoB}}

	v2 := v1
	v2.file, v2.version = "golden-v2.grlgq", 2
	v2.cfg.ClassNames = []string{"cat", "θ-dog"}
	v2.cfg.ImageWidth, v2.cfg.ImageHeight = 2, 2

	loc := v1
	loc.file, loc.version = "golden-v2-local.grlgq", 2
	loc.labels = []int{0, 0, 1}
	loc.cfg.Relevance = RelevanceLocal
	loc.cfg.PrototypesOfClass = []int{2, 1}
	loc.cfg.ImageWidth, loc.cfg.ImageHeight = 1, 4
	loc.lambda = []float64{0.5, 0.5, 0.875, 0.125, 0.25, 0.75}
	loc.protos = [][]float64{protoA, protoC, protoB}
	return []goldenModel{v1, v2, loc}
}

// encode writes g byte by byte as docs/model-format.md lays it out,
// without the package's encoder.
func (g *goldenModel) encode(version uint32) []byte {
	le := binary.LittleEndian
	var payload []byte
	u32 := func(v int) { payload = le.AppendUint32(payload, uint32(v)) }
	f64 := func(v float64) { payload = le.AppendUint64(payload, math.Float64bits(v)) }
	c := &g.cfg
	// The config block.
	u32(c.SubspaceDim)
	u32(c.PrototypesPerClass)
	u32(c.StepEvery)
	u32(c.Epochs)
	u32(c.Patience)
	flags := byte(c.Activation)
	if c.ClassWeights {
		flags |= 0x80
	}
	payload = append(payload, byte(c.Init), byte(c.Relevance), byte(c.Schedule), flags)
	for _, v := range []float64{c.InitNoise, c.Eta, c.Gamma, c.Tau, c.Beta, c.RelevanceFloor, c.ValidationFraction, c.Temperature, c.RejectMargin} {
		f64(v)
	}
	payload = le.AppendUint64(payload, c.Seed)
	if version >= 2 {
		u32(c.ImageWidth)
		u32(c.ImageHeight)
	}
	// Labels, counts, names, relevances, prototypes.
	for _, l := range g.labels {
		u32(l)
	}
	var hflags uint32
	if c.PrototypesOfClass != nil {
		hflags |= 2
		for _, n := range c.PrototypesOfClass {
			u32(n)
		}
	}
	if c.ClassNames != nil {
		hflags |= 1
		for _, s := range c.ClassNames {
			u32(len(s))
			payload = append(payload, s...)
		}
	}
	for _, v := range g.lambda {
		f64(v)
	}
	for _, w := range g.protos {
		for _, v := range w {
			f64(v)
		}
	}
	// The header, then the checksum of everything.
	b := []byte("GRLGQMDL")
	for _, v := range []uint32{version, uint32(g.dim), uint32(g.d), uint32(len(g.labels)), uint32(g.classes), hflags} {
		b = le.AppendUint32(b, v)
	}
	b = le.AppendUint64(b, g.epochs)
	b = le.AppendUint64(b, uint64(len(payload)))
	b = append(b, payload...)
	return le.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// TestFormatGolden reads the golden file of each version: the bytes are
// those the documented layout gives, Load decodes every field to the
// expected value, and Save of the loaded model writes the version 2 bytes
// (the same file for version 2; version 1 upgraded, image size 0x0).
func TestFormatGolden(t *testing.T) {
	for _, g := range goldenModels() {
		t.Run(g.file, func(t *testing.T) {
			path := filepath.Join("testdata", g.file)
			want := g.encode(g.version)
			if *updateGolden {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("%s differs from the documented layout of its content (%d bytes, want %d)", path, len(b), len(want))
			}
			if v := binary.LittleEndian.Uint32(b[8:]); v != g.version {
				t.Fatalf("version %d, want %d", v, g.version)
			}
			m, err := Load(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			g.check(t, m)

			// Save writes version 2, the same content.
			var out bytes.Buffer
			if err := m.Save(&out); err != nil {
				t.Fatal(err)
			}
			if want2 := g.encode(2); !bytes.Equal(out.Bytes(), want2) {
				t.Errorf("Save of the loaded model: %d bytes differ from the version 2 layout (%d bytes)", out.Len(), len(want2))
			}
			if g.version == 2 && !bytes.Equal(out.Bytes(), b) {
				t.Errorf("Save of the loaded model differs from %s", path)
			}
		})
	}
}

// check compares every decoded field of m with g.
func (g *goldenModel) check(t *testing.T, m *Model) {
	t.Helper()
	if m.Dim() != g.dim || m.SubspaceDim() != g.d || m.NumClasses() != g.classes || m.NumPrototypes() != len(g.labels) || m.Epochs() != int(g.epochs) {
		t.Errorf("D=%d d=%d C=%d p=%d epochs=%d, want %d %d %d %d %d", m.Dim(), m.SubspaceDim(), m.NumClasses(), m.NumPrototypes(), m.Epochs(),
			g.dim, g.d, g.classes, len(g.labels), g.epochs)
	}
	if !reflect.DeepEqual(m.Labels(), g.labels) {
		t.Errorf("labels %v, want %v", m.Labels(), g.labels)
	}
	want := g.cfg
	if g.version == 1 {
		want.ImageWidth, want.ImageHeight = 0, 0 // not in version 1
	}
	if got := m.Config(); !reflect.DeepEqual(got, want.Config) {
		t.Errorf("config\n got %+v\nwant %+v", got, want.Config)
	}
	if got := m.TrainConfig(); !reflect.DeepEqual(got, want.TrainConfig) {
		t.Errorf("training config\n got %+v\nwant %+v", got, want.TrainConfig)
	}
	if got := m.PredictConfig(); got != want.PredictConfig {
		t.Errorf("prediction config %+v, want %+v", got, want.PredictConfig)
	}
	if w, h := m.ImageSize(); w != want.ImageWidth || h != want.ImageHeight {
		t.Errorf("image size width %d height %d", w, h)
	}
	for c, n := range g.cfg.ClassNames {
		if m.ClassName(c) != n {
			t.Errorf("class %d named %q, want %q", c, m.ClassName(c), n)
		}
	}
	if !reflect.DeepEqual(m.Relevances(), g.lambda) {
		t.Errorf("relevances %v, want %v", m.Relevances(), g.lambda)
	}
	for k, w := range g.protos {
		p := m.Prototype(k)
		for r := range g.dim {
			for c := range g.d {
				if p.At(r, c) != w[r*g.d+c] {
					t.Errorf("prototype %d (%d, %d) = %v, want %v", k, r, c, p.At(r, c), w[r*g.d+c])
				}
			}
		}
	}
}

// TestFormatJSONGolden: the JSON form of the version 2 golden model, as
// docs/model-format.md shows it, and back.
func TestFormatJSONGolden(t *testing.T) {
	g := goldenModels()[1]
	m, err := Load(bytes.NewReader(g.encode(2)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden-v2.json")
	got, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON of the golden model differs from %s:\n%s", path, got)
	}
	var back Model
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	g.check(t, &back)
}

// TestFormatNone: "no noise" and "no floor", 0 in TrainConfig, are -1 in
// the file as they were before model.Options (version 1 and 2 files keep
// their bytes), any negative stored value loads as 0, and the JSON form
// spells them the same way.
func TestFormatNone(t *testing.T) {
	for _, version := range []uint32{1, 2} {
		for _, stored := range []float64{-1, -0.5} {
			g := goldenModels()[version-1]
			g.cfg.InitNoise, g.cfg.RelevanceFloor = stored, stored
			m, err := Load(bytes.NewReader(g.encode(version)))
			if err != nil {
				t.Fatal(err)
			}
			if tc := m.TrainConfig(); tc.InitNoise != 0 || tc.RelevanceFloor != 0 {
				t.Errorf("version %d, stored %v: InitNoise %v, RelevanceFloor %v, want 0 (none)", version, stored, tc.InitNoise, tc.RelevanceFloor)
			}
			var out bytes.Buffer
			if err := m.Save(&out); err != nil {
				t.Fatal(err)
			}
			g.cfg.InitNoise, g.cfg.RelevanceFloor = -1, -1
			if !bytes.Equal(out.Bytes(), g.encode(2)) {
				t.Errorf("version %d, stored %v: Save does not write none as -1", version, stored)
			}
			js, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(js, []byte(`"init_noise":-1`)) || !bytes.Contains(js, []byte(`"relevance_floor":-1`)) {
				t.Errorf("JSON does not spell none as -1: %.300s", js)
			}
			var back Model
			if err := back.UnmarshalJSON(js); err != nil {
				t.Fatal(err)
			}
			if tc := back.TrainConfig(); tc.InitNoise != 0 || tc.RelevanceFloor != 0 {
				t.Errorf("JSON round trip: InitNoise %v, RelevanceFloor %v", tc.InitNoise, tc.RelevanceFloor)
			}
		}
	}
}
