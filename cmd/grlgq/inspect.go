package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/internal/safefile"
	"github.com/grlgq/grlgq/model"
)

// runInspect prints what a model file is: its format version, shapes,
// classes, prototypes per class, relevances and the settings it was
// trained with; with -json, the model's full JSON form (MarshalJSON) with
// "file_version" added.
func runInspect(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("inspect")
	var asJSON bool
	fs.BoolVar(&asJSON, "json", false, `print the model's full JSON form (model.MarshalJSON, prototypes included) with its "file_version"`)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	// The model may come before the flags too: inspect MODEL -json.
	if fs.NArg() == 0 {
		return usagef(fs, "MODEL is required: grlgq inspect MODEL [-json]")
	}
	path := fs.Arg(0)
	if err := parseFlags(e, fs, fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef(fs, "one MODEL only; unexpected %q", fs.Arg(0))
	}
	g := e.guard(fs)
	if err := g.Input("MODEL", path, false); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	version, err := fileVersion(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m, err := model.LoadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if asJSON {
		b, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		b = append([]byte(fmt.Sprintf(`{"file_version":%d,`, version)), b[1:]...)
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return err
		}
		out.WriteByte('\n')
		_, err = e.stdout.Write(out.Bytes())
		return err
	}
	describeModel(e.stdout, path, version, m)
	return nil
}

// fileVersion reads the version field of a model file's header.
func fileVersion(path string) (int, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return model.FileVersion(f)
}

// describeModel writes the text form of inspect.
func describeModel(w io.Writer, path string, version int, m *model.Model) {
	c := model.Options{Model: m.Config(), Train: m.TrainConfig(), Predict: m.PredictConfig()}
	d := m.SubspaceDim()
	fmt.Fprintf(w, "model       %s\n", path)
	fmt.Fprintf(w, "format      version %d (this grlgq reads 1 to %d)\n", version, model.FormatVersion)
	shape := fmt.Sprintf("D=%d, d=%d", m.Dim(), d)
	if iw, ih := m.ImageSize(); iw > 0 && ih > 0 {
		shape += fmt.Sprintf(" (images of %s pixels, HxW)", imageset.FormatSize(iw, ih))
	}
	fmt.Fprintf(w, "shape       %s\n", shape)
	labels := m.Labels()
	fmt.Fprintf(w, "prototypes  %d\n", len(labels))
	fmt.Fprintf(w, "classes     %d\n", m.NumClasses())
	for cl := 0; cl < m.NumClasses(); cl++ {
		var ks []string
		for k, l := range labels {
			if l == cl {
				ks = append(ks, fmt.Sprint(k))
			}
		}
		fmt.Fprintf(w, "  %3d %-16s %d prototype(s): %s\n", cl, className(m, cl), len(ks), strings.Join(ks, " "))
	}
	lam := m.Relevances()
	switch c.Model.Relevance {
	case model.RelevanceLocal:
		fmt.Fprintf(w, "relevance   local (one vector per prototype, θ1 first)\n")
		for k := range labels {
			fmt.Fprintf(w, "  W%-3d %-12s λ = %s\n", k, className(m, labels[k]), fmtFloats(lam[k*d:(k+1)*d], 4))
		}
	case model.RelevanceNone:
		fmt.Fprintf(w, "relevance   none (GLGQ, λ = 1/d fixed): %s\n", fmtFloats(lam, 4))
	default:
		fmt.Fprintf(w, "relevance   global (GRLGQ, θ1 first): λ = %s\n", fmtFloats(lam, 4))
	}
	fmt.Fprintf(w, "distance    %s\n", c.Model.Distance.Formula())
	fmt.Fprintf(w, "epochs      %d\n", m.Epochs())
	fmt.Fprintf(w, "trained     %s\n", trainedWith(c))
	fmt.Fprintf(w, "prediction  temperature %g, reject margin %g\n", c.Predict.Temperature, c.Predict.RejectMargin)
	md := m.Metadata()
	if len(md) == 0 {
		fmt.Fprintln(w, "provenance  none recorded (a model saved by the library, or by grlgq before it recorded its provenance)")
		return
	}
	fmt.Fprintln(w, "provenance")
	for _, k := range slices.Sorted(maps.Keys(md)) {
		fmt.Fprintf(w, "  %-22s %s\n", k, oneLine(md[k]))
	}
}

// trainedWith describes the training settings stored in a model (those of
// its last training call).
func trainedWith(o model.Options) string {
	c := o.Train
	per, init, sched, phi := trainingWords(o)
	s := fmt.Sprintf("prototypes per class %s, init %s (noise %g), η=%g γ=%g, schedule %s, φ %s, relevance floor %g, %d epoch(s) in the last run, seed %d",
		per, init, c.InitNoise, c.Eta, c.Gamma, sched, phi, c.RelevanceFloor, c.Epochs, c.Seed)
	if c.ClassWeights {
		s += ", class weights"
	}
	if c.ValidationFraction > 0 {
		s += fmt.Sprintf(", validation %g", c.ValidationFraction)
		if c.Patience > 0 {
			s += fmt.Sprintf(" (patience %d)", c.Patience)
		}
	}
	return s
}
