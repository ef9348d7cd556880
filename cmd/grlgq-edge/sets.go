package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/model"
)

// setSeparator is the line that ends a set of the text format on stdin
// when another follows.
const setSeparator = "---"

// usageHead is the start of the help (-h): the usage line, the inputs,
// the stdin formats and the output; the flags follow.
const usageHead = `usage: grlgq-edge -model MODEL [-json] [-width W -height H] [-max-pixels N -max-set-images N -max-values N] [-memstats] INPUT...

Classifies image sets with a model written by grlgq train. Each INPUT is
one image set, classified in order:

  DIR  a folder of PNG/JPEG images (sorted by name; other files ignored),
       converted to gray in [0, 1] and resized to the image size the
       model records (or to -width x -height).
  -    standard input (at most once), holding one or more sets in either
       format, told apart by the first 8 bytes of each set:
         binary: "GRLGQSET", uint32 D, uint32 m (little-endian), then m
                 images of D little-endian float64 pixels each (image 0's
                 D pixels first); another binary set may follow directly.
         text:   one image per line, D numbers separated by spaces, tabs
                 or commas; blank lines and lines starting with '#' are
                 skipped; a line "---" ends a set and starts the next.
       A set of one image is classified as that image (distance θ1²); m
       images need m >= d, the model's subspace dimension.

Output, per set (text): "set I INPUT" (only with several INPUTs; - is one
however many sets it holds), "label L" (-1: rejected), "name N" (the
class's name), "margin M" (label-free, 0 to 1: (δ2-δ1)/(δ2+δ1) of the two
nearest classes; below the model's reject threshold the set is rejected),
"rejected true|false", "probability c NAME p" for every class, "distance
k class c δ" for every prototype; sets are separated by a blank line.
-json prints one JSON object per set, one per line, with the same fields.
Floats are the shortest form that parses back to the same bits. The sets
are printed as they are classified, a set on stdin as soon as it is
complete (its m-th image read, or its "---" line or the end of input):
a client on a pipe can send one set and wait for its answer. The first
set that fails ends the run (exit 1), its error on one line.

Flags:
`

// result is what the binary prints of one set.
type result struct {
	Set           int       `json:"set"`
	Input         string    `json:"input"`
	Label         int       `json:"label"`
	Name          string    `json:"name,omitempty"`
	Rejected      bool      `json:"rejected"`
	Margin        float64   `json:"margin"`
	Images        int       `json:"images"`
	ClassNames    []string  `json:"class_names"`
	Probabilities []float64 `json:"probabilities"`
	Classes       []int     `json:"prototype_classes"`
	Distances     []float64 `json:"distances"`
}

// text is the result as text; several adds the "set" line.
func (r *result) text(several bool) []byte {
	var b bytes.Buffer
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if several {
		fmt.Fprintf(&b, "set %d %s\n", r.Set, r.Input)
	}
	fmt.Fprintf(&b, "label %d\n", r.Label)
	if r.Name != "" {
		fmt.Fprintf(&b, "name %s\n", r.Name)
	}
	fmt.Fprintf(&b, "margin %s\nrejected %t\n", g(r.Margin), r.Rejected)
	for c, p := range r.Probabilities {
		fmt.Fprintf(&b, "probability %d %s %s\n", c, r.ClassNames[c], g(p))
	}
	for k, d := range r.Distances {
		fmt.Fprintf(&b, "distance %d class %d %s\n", k, r.Classes[k], g(d))
	}
	return b.Bytes()
}

// classifyAll loads the model and classifies the sets of inputs in order
// (a folder: one set; "-": the sets on stdin), one at a time
// (Model.SampleOf, Model.PredictTo on this goroutine: small devices, no
// worker wake-ups), writing each result to out as soon as it is known.
func classifyAll(modelPath string, inputs []string, w, h int, lim imageset.Limits, stdin io.Reader, out io.Writer, asJSON bool) error {
	m, err := model.LoadFile(modelPath)
	if err != nil {
		return err
	}
	names := make([]string, m.NumClasses())
	for c := range names {
		if names[c] = m.ClassName(c); names[c] == "" {
			names[c] = strconv.Itoa(c)
		}
	}
	var (
		pred model.Prediction
		set  int
		// The "set" line is decided by the command line alone: whether
		// stdin holds another set is not known when a set is printed.
		several = len(inputs) > 1
	)
	emit := func(input string, imgs [][]float64) error {
		x, err := m.SampleOf(imgs)
		if err == nil {
			err = m.PredictTo(&pred, x)
		}
		if err != nil {
			if several || set > 0 {
				return fmt.Errorf("set %d (%s): %w", set, input, err)
			}
			return err
		}
		r := &result{Set: set, Input: input, Label: pred.Label, Rejected: pred.Rejected, Margin: pred.Margin, Images: len(imgs),
			ClassNames: names, Probabilities: slices.Clone(pred.Probabilities), Classes: m.Labels(), Distances: slices.Clone(pred.Distances)}
		if pred.Label >= 0 {
			r.Name = m.ClassName(pred.Label)
		}
		var b []byte
		if asJSON {
			if b, err = json.Marshal(r); err != nil {
				return err
			}
			b = append(b, '\n')
		} else {
			if set > 0 {
				b = []byte{'\n'}
			}
			b = append(b, r.text(several)...)
		}
		set++
		_, err = out.Write(b)
		return err
	}
	for _, in := range inputs {
		if in != "-" {
			imgs, err := readDir(in, w, h, m, lim)
			if err != nil {
				return err
			}
			if err := emit(in, imgs); err != nil {
				return err
			}
			continue
		}
		sets := &stdinSets{r: bufio.NewReaderSize(stdin, 1<<16), dim: m.Dim()}
		for {
			imgs, err := sets.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := emit("-", imgs); err != nil {
				return err
			}
		}
	}
	return nil
}
