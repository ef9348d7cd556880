package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/internal/realdata"
	"github.com/grlgq/grlgq/internal/reference"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// modelFixture is a model with p prototypes (one per class, random
// orthonormal D x d bases from fixed streams) for both implementations.
type modelFixture struct {
	ours   *model.Model
	ref    *reference.Model
	protos []*linalg.Dense
}

// newModelFixture builds the same model twice. Ours goes through the public
// API: Init with InitSample and no noise starts each prototype at the given
// basis (one "training set" per class).
func newModelFixture(b *testing.B, dim, d, p int, workers int) *modelFixture {
	b.Helper()
	f := &modelFixture{ref: &reference.Model{Lambda: reference.UniformLambda(d), Floor: 1e-4, Relevance: true}}
	sets := make([]*subspace.Subspace, p)
	labels := make([]int, p)
	for k := 0; k < p; k++ {
		w := denseFrom(randomOrthonormal(uint64(5000+k), dim, d, d), dim, d, d)
		f.protos = append(f.protos, w)
		sets[k] = &subspace.Subspace{Basis: w}
		labels[k] = k
		f.ref.Prototypes = append(f.ref.Prototypes, toGonum(w))
		f.ref.Labels = append(f.ref.Labels, k)
	}
	o := model.DefaultOptions()
	o.Train.InitNoise, o.Train.Workers = 0, workers
	m, err := model.Init(o, model.Sets(sets), labels)
	if err == nil {
		m, err = m.WithWorkers(workers) // the predictions' cores
	}
	if err != nil {
		b.Fatal(err)
	}
	f.ours = m
	// The reference starts from our (re-orthonormalised) prototypes.
	for k := 0; k < p; k++ {
		f.ref.Prototypes[k] = toGonum(m.Prototype(k))
	}
	return f
}

// denseFrom copies a row-major rows x cols slice (stride ld) into an
// aligned linalg.Dense.
func denseFrom(data []float64, rows, cols, ld int) *linalg.Dense {
	a := linalg.NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		copy(a.Row(r), data[r*ld:r*ld+cols])
	}
	return a
}

func toGonum(a *linalg.Dense) *mat.Dense {
	m := mat.NewDense(a.Rows, a.Cols, nil)
	for r := 0; r < a.Rows; r++ {
		m.SetRow(r, a.Row(r))
	}
	return m
}

// BenchmarkPredictSet: classify one image-set subspace (distances to every
// prototype, nearest class, probabilities, margin). Ours: Model.PredictTo
// into a reused Prediction (with the model's crew, all cores); reference:
// PredictSet. floor: the p projections Pᵀ W_k through kernels.AtB on one
// core and nothing else, the hardware floor of the call on one core.
//
// D=400,d=5,p=1000,classes=10: a model of 1,000 prototypes, 100 per class,
// each the span of its class centre C_c (a random orthonormal basis) plus
// 0.01·G (G Gaussian: principal angles of about 0.2 rad from the centre,
// the centres about 1.4 rad apart), and 16 queries drawn the same way
// around the centres; all cores. pruned: the label alone
// (Model.PredictLabelsTo of the one set), by the engine's nearest-
// prototype search, which bounds every distance from below through a pivot
// index before projecting and reports the fraction of projections and of
// values (SVDs) it skipped; brute: Model.PredictTo, every distance.
// Both give the same label.
func BenchmarkPredictSet(b *testing.B) {
	b.Run("D=400,d=5,p=1000,classes=10", predictManyBench)
	const dim, d, p = 400, 5, 8
	b.Run(fmt.Sprintf("D=%d,d=%d,p=%d", dim, d, p), func(b *testing.B) {
		x := &subspace.Subspace{Basis: denseFrom(randomOrthonormal(7000, dim, d, d), dim, d, d)}
		f := newModelFixture(b, dim, d, p, 0)
		b.Run("ours", func(b *testing.B) {
			var out model.Prediction
			if err := f.ours.PredictTo(&out, model.Set(x)); err != nil { // packs the prototypes, starts the crew
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := f.ours.PredictTo(&out, model.Set(x)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("floor", func(b *testing.B) {
			m := make([]float64, d*d)
			P := x.Basis
			b.ReportAllocs()
			for b.Loop() {
				for _, w := range f.protos {
					kernels.AtB(m, d, P.Data, P.Stride, w.Data, w.Stride, dim, d, d)
				}
			}
		})
		b.Run("reference", func(b *testing.B) {
			g := toGonum(x.Basis)
			b.ReportAllocs()
			for b.Loop() {
				f.ref.PredictSet(g)
			}
		})
	})
}

// BenchmarkPredictImage: classify one image (θ_1 = arccos(‖Wᵀx‖/‖x‖) to
// every prototype). Ours: Model.PredictTo of a model.Image (the one
// prediction path: the caller and the model's crew on the other cores
// split the prototypes of a dense image; a sparse one is too small to
// gain); ours-f32: the same model
// converted by Model.WithPrecision(model.Float32) (float32 projections,
// every pixel read); reference: PredictImage.
//
//   - D=784,d=12,p=10: a dense N(0,1) image, no pixel zero: the worst case,
//     every pixel's row of the prototypes is read (from L2).
//   - D=784,d=12,p=10,zeros=80%: digitImage, a synthetic 28 x 28 digit
//     with exactly 80% of its pixels 0 (627 of 784), the rest a contiguous
//     stroke: ours skips the zero pixels (same bits).
//   - D=784,d=12,p=10,mnist: MNIST test image 0 (a 7, 84% zeros) from
//     the real-data folder (GRLGQ_DATA); skipped when the data is absent.
func BenchmarkPredictImage(b *testing.B) {
	const dim, d, p = 784, 12, 10
	run := func(name string, image func(b *testing.B) []float64) {
		b.Run(fmt.Sprintf("D=%d,d=%d,p=%d%s", dim, d, p, name), func(b *testing.B) {
			x := image(b)
			f := newModelFixture(b, dim, d, p, 0)
			b.Run("ours", func(b *testing.B) {
				var out model.Prediction
				if err := f.ours.PredictTo(&out, model.Image(x)); err != nil { // packs the prototypes, starts the crew
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := f.ours.PredictTo(&out, model.Image(x)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("ours-f32", func(b *testing.B) {
				m32, err := f.ours.WithPrecision(model.Float32)
				if err != nil {
					b.Fatal(err)
				}
				var out model.Prediction
				if err := m32.PredictTo(&out, model.Image(x)); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := m32.PredictTo(&out, model.Image(x)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("reference", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f.ref.PredictImage(x)
				}
			})
		})
	}
	run("", func(*testing.B) []float64 { return randomGaussian(7100, 1, dim, dim) })
	run(",zeros=80%", func(*testing.B) []float64 { return digitImage(28, 28, 157) })
	run(",mnist", mnistTestImage)
}

// digitImage returns a w x h image with exactly nonzero nonzero pixels
// forming one contiguous stroke, like a handwritten 0: the nonzero pixels
// are the nonzero pixels nearest to a tilted ellipse (semi-axes 0.22w and
// 0.33h), the pen's ink falling off from 1 on the ellipse to 0.3 at the
// stroke's edge; every other pixel is exactly 0.
func digitImage(w, h, nonzero int) []float64 {
	type px struct {
		i    int
		dist float64
	}
	pix := make([]px, w*h)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	ax, ay := 0.22*float64(w), 0.33*float64(h)
	sin, cos := math.Sincos(0.25)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			u, v := (cos*dx+sin*dy)/ax, (-sin*dx+cos*dy)/ay
			r := math.Hypot(u, v)
			pix[y*w+x] = px{y*w + x, math.Abs(r-1) * math.Min(ax, ay)}
		}
	}
	sort.SliceStable(pix, func(i, j int) bool { return pix[i].dist < pix[j].dist })
	img := make([]float64, w*h)
	edge := pix[nonzero-1].dist
	for _, q := range pix[:nonzero] {
		img[q.i] = 1 - 0.7*q.dist/max(edge, 1e-9)
	}
	return img
}

// mnistTestImage returns the first image of the MNIST test set (pixels
// value/255) from the real-data folder's mnist/ (internal/realdata), or
// skips.
func mnistTestImage(b *testing.B) []float64 {
	images, labels := "mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"
	dir := realdata.Dir(b, images, labels)
	ds, err := (dataset.IDX{Images: filepath.Join(dir, images), Labels: filepath.Join(dir, labels)}).Load(context.Background())
	if err != nil {
		b.Skipf("MNIST test set not readable under %s: %v", dir, err)
	}
	return append([]float64(nil), ds.Images[0]...)
}

// BenchmarkPredictBatch: the predictions of n single images
// (Model.PredictBatchTo into reused predictions), all cores against one
// worker (the model's batch methods split the images between goroutines
// started for the call).
func BenchmarkPredictBatch(b *testing.B) {
	const dim, d, p, n = 784, 12, 10, 10000
	b.Run(fmt.Sprintf("D=%d,d=%d,p=%d,n=%d", dim, d, p, n), func(b *testing.B) {
		x := randomGaussian(7200, n, dim, dim)
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = x[i*dim : (i+1)*dim]
		}
		xs := model.Images(rows) // back to back in x: read in place
		preds := make([]model.Prediction, n)
		run := func(workers int) func(b *testing.B) {
			return func(b *testing.B) {
				f := newModelFixture(b, dim, d, p, workers)
				if err := f.ours.PredictBatchTo(preds, xs); err != nil { // size the predictions
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := f.ours.PredictBatchTo(preds, xs); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		b.Run("ours", run(0))
		b.Run("ours-1worker", run(1))
	})
}

// predictManyBench is BenchmarkPredictSet's case of 1,000 prototypes
// around 10 class centres.
func predictManyBench(b *testing.B) {
	const dim, d, classes, per, spread = 400, 5, 10, 100, 0.01
	rng := rand.New(rand.NewPCG(seed, 7600))
	orth := linalg.NewOrthonormalizer(dim, d)
	centres := make([]*linalg.Dense, classes)
	for c := range centres {
		centres[c] = linalg.NewDense(dim, d)
		if err := orth.Random(centres[c], rng); err != nil {
			b.Fatal(err)
		}
	}
	around := func(c int) *subspace.Subspace {
		w := linalg.NewDense(dim, d)
		for r := 0; r < dim; r++ {
			row, src := w.Row(r), centres[c].Row(r)
			for j := range row {
				row[j] = src[j] + spread*rng.NormFloat64()
			}
		}
		if err := orth.Orthonormalize(w); err != nil {
			b.Fatal(err)
		}
		return &subspace.Subspace{Basis: w}
	}
	var sets []*subspace.Subspace
	var labels []int
	for i := 0; i < per; i++ {
		for c := 0; c < classes; c++ {
			sets, labels = append(sets, around(c)), append(labels, c)
		}
	}
	o := model.DefaultOptions()
	o.Model.PrototypesPerClass, o.Train.Init, o.Train.InitNoise = per, model.InitSample, 0
	m, err := model.Init(o, model.Sets(sets), labels)
	if err != nil {
		b.Fatal(err)
	}
	const nq = 16
	queries := make([]model.Sample, nq)
	for i := range queries {
		queries[i] = model.Set(around(i % classes))
	}
	var out model.Prediction
	got := make([]int, 1)
	for _, q := range queries { // the same labels; builds the pivot index
		if err := m.PredictTo(&out, q); err != nil {
			b.Fatal(err)
		}
		if err := m.PredictLabelsTo(got, []model.Sample{q}); err != nil {
			b.Fatal(err)
		}
		if got[0] != out.Label {
			b.Fatalf("pruned label %d, brute %d", got[0], out.Label)
		}
	}
	b.Run("pruned", func(b *testing.B) {
		one := make([]model.Sample, 1)
		st0 := m.SearchStats()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			one[0] = queries[i%nq]
			if err := m.PredictLabelsTo(got, one); err != nil {
				b.Fatal(err)
			}
			i++
		}
		st := m.SearchStats()
		n := float64(st.Prototypes - st0.Prototypes)
		b.ReportMetric(float64(st.Skipped-st0.Skipped)/n, "projections-skipped")
		b.ReportMetric(1-float64(st.Valued-st0.Valued)/n, "values-skipped")
	})
	b.Run("brute", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := m.PredictTo(&out, queries[i%nq]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
