package record

import (
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// Preprocess is how the data were prepared for training: the -resize
// (zero: native size), the -pixel-max divisor (0: the format's own), d,
// and m, the images per set of single-image data (0: sets or bases).
type Preprocess struct {
	Resize   dataset.Size
	PixelMax float64
	D, M     int
}

// Provenance is the metadata train records in a model (Model.WithMetadata;
// docs/model-format.md lists the keys): the tool and Go version, when
// training started, the data (as given by source, its kind, counts and
// content hash: Dataset.ContentHash), the preprocessing, and for a
// resumed model (from non-nil) the tool and time of the one continued.
func Provenance(source string, ds *dataset.Dataset, p Preprocess, start time.Time, from *model.Model) map[string]string {
	kind := map[dataset.Kind]string{dataset.KindImages: "images", dataset.KindSets: "sets", dataset.KindBases: "bases"}[ds.Kind()]
	samples := max(len(ds.Sets), len(ds.Bases))
	if samples == 0 {
		samples = len(ds.Images)
	}
	md := map[string]string{
		"tool":         "grlgq " + base.Version(),
		"go":           runtime.Version(),
		"created":      start.UTC().Format(time.RFC3339),
		"data.source":  source,
		"data.kind":    kind,
		"data.classes": strconv.Itoa(len(ds.Classes)),
		"data.samples": strconv.Itoa(samples),
		"data.images":  strconv.Itoa(len(ds.Images)),
		"data.sha256":  ds.ContentHash(),
		"preprocess.d": strconv.Itoa(p.D),
	}
	if p.M > 0 && ds.Kind() == dataset.KindImages {
		md["preprocess.m"] = strconv.Itoa(p.M)
	}
	if p.Resize.Width > 0 {
		md["preprocess.resize"] = p.Resize.String()
	}
	if p.PixelMax > 0 {
		md["preprocess.pixel_max"] = strconv.FormatFloat(p.PixelMax, 'g', -1, 64)
	}
	if from != nil {
		md["resumed_from"] = "a model without provenance"
		if fm := from.Metadata(); fm["tool"] != "" {
			md["resumed_from"] = fm["tool"] + ", " + fm["created"]
		}
	}
	for k, v := range md {
		if len(v) > model.MaxMetadataValue { // a very long path
			md[k] = strings.ToValidUTF8(v[:model.MaxMetadataValue], "")
		}
	}
	return md
}
