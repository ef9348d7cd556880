package model

import (
	"encoding/json"
	"fmt"

	"github.com/grlgq/grlgq/linalg"
)

// encodingText is the encoding.TextUnmarshaler of the enums.
type encodingText interface{ UnmarshalText([]byte) error }

// jsonFormat names the JSON export.
const jsonFormat = "grlgq-model"

// jsonModel is the JSON form of a Model: the same content as the binary
// format. Prototypes are nested p x D x d arrays (prototype, pixel, column);
// relevances are d values, or p x d for local relevances (row-major).
type jsonModel struct {
	Format      string        `json:"format"`
	Version     int           `json:"version"`
	Dim         int           `json:"dim"`
	SubspaceDim int           `json:"subspace_dim"`
	Classes     int           `json:"classes"`
	ClassNames  []string      `json:"class_names,omitempty"`
	Labels      []int         `json:"labels"`
	Relevance   string        `json:"relevance"`
	Relevances  []float64     `json:"relevances"`
	Epochs      int           `json:"epochs"`
	Config      jsonConfig    `json:"config"`
	Prototypes  [][][]float64 `json:"prototypes"`
	// Metadata (since version 3, written only when present).
	Metadata map[string]string `json:"metadata,omitempty"`
}

type jsonConfig struct {
	PrototypesPerClass int     `json:"prototypes_per_class"`
	PrototypesOfClass  []int   `json:"prototypes_of_class,omitempty"`
	Init               string  `json:"init"`
	InitNoise          float64 `json:"init_noise"`
	Eta                float64 `json:"eta"`
	Gamma              float64 `json:"gamma"`
	Schedule           string  `json:"schedule"`
	StepEvery          int     `json:"step_every"`
	Tau                float64 `json:"tau"`
	Activation         string  `json:"activation"`
	Beta               float64 `json:"beta"`
	ClassWeights       bool    `json:"class_weights"`
	RelevanceFloor     float64 `json:"relevance_floor"`
	Epochs             int     `json:"epochs"`
	ValidationFraction float64 `json:"validation_fraction"`
	Patience           int     `json:"patience"`
	Seed               uint64  `json:"seed"`
	Temperature        float64 `json:"temperature"`
	RejectMargin       float64 `json:"reject_margin"`
	// Since version 2 (absent in version 1 exports: 0 = unknown).
	ImageWidth  int `json:"image_width"`
	ImageHeight int `json:"image_height"`
	// Since version 3, written only when not the default ("geodesic",
	// "float64"; absent reads as the default).
	Distance  string `json:"distance,omitempty"`
	Precision string `json:"precision,omitempty"`
}

// MarshalJSON exports m as JSON (the content of the binary format, for
// other languages). Floats are written in Go's shortest round-trip form, so
// UnmarshalJSON restores the model bit for bit. The zero Model is an
// error (ErrConfig).
func (m *Model) MarshalJSON() ([]byte, error) {
	if len(m.protos) == 0 {
		return nil, errZeroModel("json")
	}
	c, t, p := &m.cfg, &m.train, &m.pred
	version, _ := m.fileVersion()
	j := jsonModel{
		Format: jsonFormat, Version: int(version),
		Dim: m.dim, SubspaceDim: m.d, Classes: m.classes,
		ClassNames: c.ClassNames,
		Labels:     m.labels,
		Relevance:  c.Relevance.String(),
		Relevances: m.lambda,
		Epochs:     m.epochs,
		Config: jsonConfig{
			PrototypesPerClass: c.PrototypesPerClass, PrototypesOfClass: c.PrototypesOfClass,
			Init: t.Init.String(), InitNoise: storedNone(t.InitNoise),
			Eta: t.Eta, Gamma: t.Gamma,
			Schedule: t.Schedule.String(), StepEvery: t.StepEvery, Tau: t.Tau,
			Activation: t.Activation.String(), Beta: t.Beta,
			ClassWeights: t.ClassWeights, RelevanceFloor: storedNone(t.RelevanceFloor), Epochs: t.Epochs,
			ValidationFraction: t.ValidationFraction, Patience: t.Patience, Seed: t.Seed,
			Temperature: p.Temperature, RejectMargin: p.RejectMargin,
			ImageWidth: c.ImageWidth, ImageHeight: c.ImageHeight,
		},
		Prototypes: make([][][]float64, len(m.protos)),
		Metadata:   m.Metadata(),
	}
	if version >= 3 {
		j.Config.Distance, j.Config.Precision = c.Distance.String(), c.Precision.String()
	}
	for k, w := range m.protos {
		rows := make([][]float64, w.Rows)
		for r := range rows {
			rows[r] = w.Row(r)
		}
		j.Prototypes[k] = rows
	}
	return json.Marshal(&j)
}

// UnmarshalJSON reads a JSON export into m, which must be a new zero
// Model (a Model that holds a model is left as it is, and the call is an
// error wrapping ErrConfig: see UnmarshalBinary), with the same checks as
// Load (errors wrap ErrFormat, ErrVersion or ErrCorrupt).
func (m *Model) UnmarshalJSON(b []byte) error {
	var j jsonModel
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("model: json: %w: %v", ErrCorrupt, err)
	}
	if j.Format != jsonFormat {
		return fmt.Errorf("model: json: %w: format %q", ErrFormat, j.Format)
	}
	if j.Version < 1 || j.Version > formatVersion {
		return fmt.Errorf("model: json: %w %d (this package reads 1 to %d)", ErrVersion, j.Version, formatVersion)
	}
	corrupt := func(err error) error { return fmt.Errorf("model: json: %w: %v", ErrCorrupt, err) }
	if j.Dim < 1 || j.Dim > MaxDim || j.SubspaceDim < 1 || j.SubspaceDim > MaxSubDim || len(j.Prototypes) > MaxPrototype {
		return corrupt(fmt.Errorf("shape D=%d d=%d p=%d", j.Dim, j.SubspaceDim, len(j.Prototypes)))
	}
	jc := j.Config
	c := Config{
		SubspaceDim: j.SubspaceDim, PrototypesPerClass: jc.PrototypesPerClass, PrototypesOfClass: jc.PrototypesOfClass,
		ClassNames: j.ClassNames, ImageWidth: jc.ImageWidth, ImageHeight: jc.ImageHeight,
	}
	t := TrainConfig{
		InitNoise: loadedNone(jc.InitNoise), Eta: jc.Eta, Gamma: jc.Gamma, StepEvery: jc.StepEvery, Tau: jc.Tau,
		Beta: jc.Beta, ClassWeights: jc.ClassWeights, RelevanceFloor: loadedNone(jc.RelevanceFloor), Epochs: jc.Epochs,
		ValidationFraction: jc.ValidationFraction, Patience: jc.Patience, Seed: jc.Seed,
	}
	p := PredictConfig{Temperature: jc.Temperature, RejectMargin: jc.RejectMargin}
	for _, e := range []struct {
		v     encodingText
		value string
	}{{&t.Init, jc.Init}, {&c.Relevance, j.Relevance}, {&t.Schedule, jc.Schedule}, {&t.Activation, jc.Activation},
		{&c.Distance, jc.Distance}, {&c.Precision, jc.Precision}} {
		if e.value == "" && (e.v == encodingText(&c.Distance) || e.v == encodingText(&c.Precision)) {
			continue // absent before version 3: the default
		}
		if err := e.v.UnmarshalText([]byte(e.value)); err != nil {
			return corrupt(err)
		}
	}
	out := &Model{cfg: c, train: t, pred: p, dim: j.Dim, d: j.SubspaceDim, classes: j.Classes, labels: j.Labels, lambda: j.Relevances, epochs: j.Epochs}
	if len(j.Metadata) > 0 && j.Version < 3 {
		return corrupt(fmt.Errorf("metadata in a version %d export", j.Version))
	}
	var err error
	if out.meta, err = metaOf(j.Metadata); err != nil {
		return corrupt(err)
	}
	out.protos = make([]*linalg.Dense, len(j.Prototypes))
	for k, rows := range j.Prototypes {
		if len(rows) != j.Dim {
			return corrupt(fmt.Errorf("prototype %d has %d rows, want %d", k, len(rows), j.Dim))
		}
		w := linalg.NewDense(j.Dim, j.SubspaceDim)
		for r, row := range rows {
			if len(row) != j.SubspaceDim {
				return corrupt(fmt.Errorf("prototype %d row %d has %d values, want %d", k, r, len(row), j.SubspaceDim))
			}
			copy(w.Row(r), row)
		}
		out.protos[k] = w
	}
	out.roundPrototypes() // a Float32 model's values are float32 (exact for a file this package wrote)
	if err := out.validate(); err != nil {
		return corrupt(err)
	}
	return m.adopt(out, "json")
}
