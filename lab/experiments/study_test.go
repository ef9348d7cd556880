package experiments

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	xdraw "golang.org/x/image/draw"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// The validation studies behind the protocols' choices (see docs/notebook.md), run
// only with GRLGQ_TUNE=1 and steered by X_* environment variables, e.g.
//
//	GRLGQ_TUNE=1 X_INNER=1 X_SIGMOID=5 X_AUG=subsets go test -run TestStudyETH80 -v ./experiments
//	GRLGQ_TUNE=1 X_NN=1 X_M=24 X_RUNS="3e-4,1e-6,0,12" go test -run TestStudyMNIST -v -timeout 1h ./experiments
//	GRLGQ_TUNE=1 X_SIGMOID=5 X_ETA=1e-2 go test -run TestStudyYale -v ./experiments
//
// TestStudyETH80 reports inner leave-one-object-per-category-out accuracy
// on the training objects of each split (X_INNER=1); X_TEST=1 adds the
// test accuracy, which served only to diagnose why model/eth80_test.go and
// the protocol differed (X_SPLIT=model, X_PRE=8 replicate that test's
// splits and 8-bit preprocessing), never to choose anything. The MNIST and
// Yale studies read validation images carved from the training data only.

func envF(k string, def float64) float64 {
	if s := os.Getenv(k); s != "" {
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	return def
}

func envI(k string, def int) int {
	if s := os.Getenv(k); s != "" {
		v, _ := strconv.Atoi(s)
		return v
	}
	return def
}

// eth80Data8 replicates model/eth80_test.go's preprocessing (8-bit gray,
// 8-bit Catmull-Rom).
func eth80Data8(t *testing.T, dir string, d int) *eth80Data {
	root := filepath.Join(dir, "eth80")
	cats, _ := os.ReadDir(root)
	data := &eth80Data{}
	for c, cat := range cats {
		objs, _ := os.ReadDir(filepath.Join(root, cat.Name()))
		data.classes = append(data.classes, cat.Name())
		for _, o := range objs {
			files, _ := filepath.Glob(filepath.Join(root, cat.Name(), o.Name(), "*.png"))
			sort.Strings(files)
			var imgs [][]float64
			for _, f := range files {
				fh, _ := os.Open(f)
				img, err := png.Decode(fh)
				fh.Close()
				if err != nil {
					t.Fatal(err)
				}
				gray := image.NewGray(img.Bounds())
				draw.Draw(gray, gray.Bounds(), img, img.Bounds().Min, draw.Src)
				small := image.NewGray(image.Rect(0, 0, 20, 20))
				xdraw.CatmullRom.Scale(small, small.Bounds(), gray, gray.Bounds(), xdraw.Src, nil)
				v := make([]float64, 400)
				for r := 0; r < 20; r++ {
					for cc := 0; cc < 20; cc++ {
						v[r*20+cc] = float64(small.GrayAt(cc, r).Y) / 255
					}
				}
				imgs = append(imgs, v)
			}
			s, err := setSubspace(imgs, d)
			if err != nil {
				t.Fatal(err)
			}
			data.x = append(data.x, s)
			data.y = append(data.y, c)
			data.names = append(data.names, cat.Name()+"/"+o.Name())
		}
	}
	return data
}

// modelTestSplit replicates model/eth80_test.go's split s.
func modelTestSplit(y []int, classes int, s uint64) (tr, te []int) {
	rng := rand.New(rand.NewPCG(s, 1))
	byClass := make([][]int, classes)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	for _, ids := range byClass {
		for i, j := range rng.Perm(len(ids)) {
			if i < 5 {
				tr = append(tr, ids[j])
			} else {
				te = append(te, ids[j])
			}
		}
	}
	return
}

var augMirror []*subspace.Subspace
var augSubsets [][]*subspace.Subspace

func subsetSets(t *testing.T, data *eth80Data, k, size int) [][]*subspace.Subspace {
	rng := rand.New(rand.NewPCG(99+uint64(envI("X_ASEED", 0)), 1))
	out := make([][]*subspace.Subspace, len(data.x))
	for i, set := range data.imgs {
		for range k {
			p := rng.Perm(len(set))[:size]
			sub := make([][]float64, size)
			for j, q := range p {
				sub[j] = set[q]
			}
			s, err := setSubspace(sub, 5)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = append(out[i], s)
		}
	}
	return out
}

func mirrorSets(t *testing.T, data *eth80Data) []*subspace.Subspace {
	out := make([]*subspace.Subspace, len(data.x))
	for i, set := range data.imgs {
		m := make([][]float64, len(set))
		for j, img := range set {
			f := make([]float64, 400)
			for r := 0; r < 20; r++ {
				for c := 0; c < 20; c++ {
					f[r*20+c] = img[r*20+19-c]
				}
			}
			m[j] = f
		}
		var err error
		if out[i], err = setSubspace(m, 5); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// curve trains cfg on tr and returns the accuracy on te at each checkpoint.
func curve(ctx context.Context, cfg Setup, data *eth80Data, tr, te []int, cps []int) ([]float64, error) {
	xtr, ytr := pickSets(data.x, data.y, tr)
	if augMirror != nil {
		for _, i := range tr {
			xtr, ytr = append(xtr, augMirror[i]), append(ytr, data.y[i])
		}
	}
	if augSubsets != nil {
		for _, i := range tr {
			for _, s := range augSubsets[i] {
				xtr, ytr = append(xtr, s), append(ytr, data.y[i])
			}
		}
	}
	xte, yte := pickSets(data.x, data.y, te)
	out := make([]float64, len(cps))
	c := cfg
	var m *model.Model
	prev := 0
	for g, e := range cps {
		c.Epochs = e - prev
		var next *model.Model
		var err error
		if m == nil {
			next, _, err = model.Train(ctx, c.Config, c.TrainConfig, model.Sets(xtr), ytr)
		} else {
			next, _, err = model.Continue(ctx, m, c.TrainConfig, model.Sets(xtr), ytr)
			m.Close()
		}
		if err != nil {
			return nil, err
		}
		m = next
		prev = e
		if out[g], err = setAccuracy(m, xte, yte, 1); err != nil {
			return nil, err
		}
	}
	m.Close()
	return out, nil
}

// innerCurve: leave-one-object-per-category-out on the training sets tr
// (rank h within the class order of tr), mean accuracy per checkpoint.
func innerCurve(ctx context.Context, cfg Setup, data *eth80Data, tr []int, cps []int) ([]float64, error) {
	pos := map[int]int{}
	rank := make([]int, len(tr))
	nmax := 0
	for k, i := range tr {
		rank[k] = pos[data.y[i]]
		pos[data.y[i]]++
		nmax = max(nmax, pos[data.y[i]])
	}
	sum := make([]float64, len(cps))
	for h := range nmax {
		var a, b []int
		for k, i := range tr {
			if rank[k] == h {
				b = append(b, i)
			} else {
				a = append(a, i)
			}
		}
		acc, err := curve(ctx, cfg, data, a, b, cps)
		if err != nil {
			return nil, err
		}
		for g := range cps {
			sum[g] += acc[g] / float64(nmax)
		}
	}
	return sum, nil
}

func TestStudyETH80(t *testing.T) {
	tuning(t)
	dir := dataDir(t, "eth80")
	var data *eth80Data
	var err error
	if os.Getenv("X_PRE") == "8" {
		data = eth80Data8(t, dir, 5)
	} else if data, err = loadETH80(dir, 5, 2); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("X_AUG") == "mirror" {
		augMirror = mirrorSets(t, data)
	}
	if os.Getenv("X_AUG") == "subsets" {
		augSubsets = subsetSets(t, data, envI("X_NSUB", 4), envI("X_SUBSIZE", 20))
	}
	if by := envI("X_SHIFTSETS", 0); by > 0 {
		// Every object also as its 4 sets of views shifted by `by` pixels.
		if augSubsets == nil {
			augSubsets = make([][]*subspace.Subspace, len(data.x))
		}
		for i, set := range data.imgs {
			for _, d := range [4][2]int{{by, 0}, {-by, 0}, {0, by}, {0, -by}} {
				sh := make([][]float64, len(set))
				for j, img := range set {
					var err error
					if sh[j], err = dataset.Shifted(img, 20, 20, d[0], d[1]); err != nil {
						t.Fatal(err)
					}
				}
				s, err := setSubspace(sh, 5)
				if err != nil {
					t.Fatal(err)
				}
				augSubsets[i] = append(augSubsets[i], s)
			}
		}
	}
	defer func() { augSubsets, augMirror = nil, nil }()
	cps := []int{10, 20, 40, 80, 160, 300, 600, 1000}
	if v := os.Getenv("X_CPS"); v != "" {
		cps = nil
		for _, f := range strings.Split(v, ",") {
			e, _ := strconv.Atoi(f)
			cps = append(cps, e)
		}
	}
	cfg := Setup{Config: model.Config{SubspaceDim: 5, ClassNames: data.classes}, TrainConfig: model.TrainConfig{Eta: envF("X_ETA", 0.05), Gamma: envF("X_GAMMA", 1e-4), Workers: 1}}
	switch os.Getenv("X_INIT") {
	case "pca":
		cfg.Init = model.InitPCA
	case "random":
		cfg.Init = model.InitRandom
	}
	cfg.PrototypesPerClass = envI("X_PPC", 1)
	if os.Getenv("X_SIGMOID") != "" {
		cfg.Activation = model.Sigmoid
		cfg.Beta = envF("X_SIGMOID", 1)
	}
	if os.Getenv("X_REL") == "local" {
		cfg.Relevance = model.RelevanceLocal
	}
	switch os.Getenv("X_SCHED") {
	case "step":
		cfg.Schedule = model.ScheduleStep
		cfg.StepEvery = envI("X_STEP", 10)
	case "anneal":
		cfg.Schedule = model.ScheduleAnneal
		cfg.Tau = envF("X_TAU", 10)
	}
	splits := envI("X_SPLITS", 10)
	inner := os.Getenv("X_INNER") != ""
	test := os.Getenv("X_TEST") != ""
	testAcc := make([][]float64, splits)
	innerAcc := make([][]float64, splits)
	var mu sync.Mutex
	err = forEach(context.Background(), splits, 2, func(s int) error {
		var tr, te []int
		c := cfg
		if os.Getenv("X_SPLIT") == "model" {
			tr, te = modelTestSplit(data.y, len(data.classes), uint64(s))
			c.Seed = uint64(s)
		} else {
			tr, te = splitSets(data.y, len(data.classes), 5, runRNG(1, streamSplit, s))
			c.Seed = modelSeed(1, s)
		}
		if inner {
			a, err := innerCurve(context.Background(), c, data, tr, cps)
			if err != nil {
				return err
			}
			innerAcc[s] = a
		}
		if test {
			a, err := curve(context.Background(), c, data, tr, te, cps)
			if err != nil {
				return err
			}
			testAcc[s] = a
		}
		mu.Lock()
		t.Logf("split %d inner %v test %v", s, fmtv(innerAcc[s]), fmtv(testAcc[s]))
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for g, e := range cps {
		var line []string
		if inner {
			col := make([]float64, splits)
			for s := range col {
				col[s] = innerAcc[s][g]
			}
			m, sd := meanStd(col)
			line = append(line, fmt.Sprintf("inner %.2f ± %.2f", 100*m, 100*sd))
		}
		if test {
			col := make([]float64, splits)
			for s := range col {
				col[s] = testAcc[s][g]
			}
			m, sd := meanStd(col)
			line = append(line, fmt.Sprintf("test %.2f ± %.2f", 100*m, 100*sd))
		}
		t.Logf("epochs %4d: %s", e, strings.Join(line, "  "))
	}
}

func fmtv(v []float64) string {
	if v == nil {
		return "-"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.1f", 100*x)
	}
	return strings.Join(s, " ")
}

func TestStudyMNIST(t *testing.T) {
	tuning(t)
	data, tr, va := mnistValidation(t)
	m := envI("X_M", 48)
	var nbr map[int][]int
	if os.Getenv("X_NN") != "" {
		t0 := time.Now()
		nbr = neighbours(data.train.Images, data.train.Labels, tr, 10, m-1, 2)
		t.Logf("neighbours in %v", time.Since(t0))
	}
	// X_RUNS: ";"-separated runs of "eta,gamma,beta,epochs" (beta 0 = identity).
	for _, run := range strings.Split(os.Getenv("X_RUNS"), ";") {
		f := strings.Split(run, ",")
		eta, _ := strconv.ParseFloat(f[0], 64)
		gamma, _ := strconv.ParseFloat(f[1], 64)
		beta, _ := strconv.ParseFloat(f[2], 64)
		epochs, _ := strconv.Atoi(f[3])
		studyMNISTRun(t, data, tr, va, nbr, m, eta, gamma, beta, epochs)
	}
}

func studyMNISTRun(t *testing.T, data *mnistData, tr, va []int, nbr map[int][]int, m int, eta, gamma, beta float64, epochs int) {
	every := envI("X_EVERY", 2)
	regroup := os.Getenv("X_REGROUP") != ""
	cfg := Setup{Config: model.Config{SubspaceDim: 12}, TrainConfig: model.TrainConfig{Init: model.InitPCA, Eta: eta, Gamma: gamma, Workers: 2, Seed: 1}}
	if beta > 0 {
		cfg.Activation = model.Sigmoid
		cfg.Beta = beta
	}
	switch os.Getenv("X_SCHED") {
	case "anneal":
		cfg.Schedule = model.ScheduleAnneal
		cfg.Tau = envF("X_TAU", 10)
	}
	ctx := context.Background()
	grng := runRNG(1, streamGroups, 0)
	x, y, err := groupSubspaces(data.train.Images, data.train.Labels, tr, 10, m, 12, grng)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := model.Init(cfg.Config, cfg.TrainConfig, model.Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := imageAccuracy(mod, data.train.Images, data.train.Labels, va, 2)
	t.Logf("m=%d η=%g γ=%g β=%g regroup=%v nn=%v: epoch 0 val %.2f%%", m, eta, gamma, beta, regroup, nbr != nil, 100*acc)
	c := cfg
	c.Epochs = 1
	for e := 1; e <= epochs; e++ {
		if nbr != nil {
			x, y, err = nnGroupSubspaces(data.train.Images, data.train.Labels, tr, nbr, 10, m, 12, envF("X_ANCHORS", 1), grng)
		} else if regroup && e > 1 {
			x, y, err = groupSubspaces(data.train.Images, data.train.Labels, tr, 10, m, 12, grng)
		}
		if err != nil {
			t.Fatal(err)
		}
		next, h, err := model.Continue(ctx, mod, c.TrainConfig, model.Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		mod.Close()
		mod = next
		if e%every == 0 || e == epochs {
			acc, _ := imageAccuracy(mod, data.train.Images, data.train.Labels, va, 2)
			st := h.Epochs[0]
			t.Logf("epoch %d: val %.2f%% (train set acc %.4f cost %.4f λ %.3f)", e, 100*acc, st.TrainAccuracy, st.Cost, st.Relevances)
		}
	}
	mod.Close()
}

func TestStudyYale(t *testing.T) {
	tuning(t)
	ds, tr, va := yaleInner(t, envI("X_REP", 0), envI("X_FOLD", 0))
	m := envI("X_M", 14)
	epochs := envI("X_EPOCHS", 200)
	every := envI("X_EVERY", 20)
	regroup := envI("X_REGROUP", 0) // 0: fixed groupings (X_NGROUP of them), 1: fresh each epoch
	ngroup := envI("X_NGROUP", 5)
	cfg := Setup{Config: model.Config{SubspaceDim: 7}, TrainConfig: model.TrainConfig{Init: model.InitPCA, Eta: envF("X_ETA", 1e-3), Gamma: envF("X_GAMMA", 1e-5), Workers: 1, Seed: 1}}
	if os.Getenv("X_SIGMOID") != "" {
		cfg.Activation = model.Sigmoid
		cfg.Beta = envF("X_SIGMOID", 1)
	}
	cfg.PrototypesPerClass = envI("X_PPC", 1)
	ctx := context.Background()
	grng := runRNG(1, streamGroups, 0)
	group := func(n int) ([]*subspace.Subspace, []int) {
		var x []*subspace.Subspace
		var y []int
		for range n {
			xs, ys, err := groupSubspaces(ds.Images, ds.Labels, tr, len(ds.Classes), m, 7, grng)
			if err != nil {
				t.Fatal(err)
			}
			x, y = append(x, xs...), append(y, ys...)
		}
		return x, y
	}
	x, y := group(ngroup)
	mod, err := model.Init(cfg.Config, cfg.TrainConfig, model.Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := imageAccuracy(mod, ds.Images, ds.Labels, va, 1)
	t.Logf("m=%d η=%g γ=%g regroup=%v ngroup=%d β=%v: epoch 0 val %.2f%%", m, cfg.Eta, cfg.Gamma, regroup, ngroup, os.Getenv("X_SIGMOID"), 100*acc)
	c := cfg
	c.Epochs = 1
	for e := 1; e <= epochs; e++ {
		if regroup > 0 && e > 1 {
			x, y = group(ngroup)
		}
		next, h, err := model.Continue(ctx, mod, c.TrainConfig, model.Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		mod.Close()
		mod = next
		if e%every == 0 || e == epochs {
			acc, _ := imageAccuracy(mod, ds.Images, ds.Labels, va, 1)
			st := h.Epochs[0]
			t.Logf("epoch %d: val %.2f%% (train set acc %.4f cost %.4f λ %.3f)", e, 100*acc, st.TrainAccuracy, st.Cost, st.Relevances)
		}
	}
}

// neighbours returns, for every index i in idx, the k most cosine-similar
// other images of its class among idx (indices into imgs), best first.
func neighbours(imgs [][]float64, y []int, idx []int, classes, k, w int) map[int][]int {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	dim := len(imgs[idx[0]])
	out := make(map[int][]int, len(idx))
	var mu sync.Mutex
	for _, ids := range byClass {
		n := len(ids)
		// Normalised rows A (n x dim) and Bᵀ (dim x n).
		a := make([]float64, n*dim)
		bt := make([]float64, dim*n)
		for r, i := range ids {
			var s float64
			for _, v := range imgs[i] {
				s += v * v
			}
			s = 1 / sqrt(s)
			for c, v := range imgs[i] {
				a[r*dim+c] = v * s
				bt[c*n+r] = v * s
			}
		}
		const blk = 256
		nb := (n + blk - 1) / blk
		forEach(context.Background(), nb, w, func(b int) error {
			lo, hi := b*blk, min(n, (b+1)*blk)
			g := make([]float64, (hi-lo)*n)
			kernels.AB(g, n, a[lo*dim:], dim, bt, n, hi-lo, dim, n)
			res := make(map[int][]int, hi-lo)
			for r := lo; r < hi; r++ {
				row := g[(r-lo)*n : (r-lo+1)*n]
				best := make([]int, 0, k+1)
				for j := range row {
					if j == r {
						continue
					}
					if len(best) < k || row[j] > row[best[len(best)-1]] {
						// insert
						p := len(best)
						if p < k {
							best = append(best, j)
						} else {
							p = k - 1
							best[p] = j
						}
						for p > 0 && row[best[p]] > row[best[p-1]] {
							best[p], best[p-1] = best[p-1], best[p]
							p--
						}
					}
				}
				nb := make([]int, len(best))
				for q, j := range best {
					nb[q] = ids[j]
				}
				res[ids[r]] = nb
			}
			mu.Lock()
			for kk, v := range res {
				out[kk] = v
			}
			mu.Unlock()
			return nil
		})
	}
	return out
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// nnGroupSubspaces: within each class, n_c/m random anchors (rng), each
// grouped with its m-1 nearest neighbours.
func nnGroupSubspaces(imgs [][]float64, y []int, idx []int, nbr map[int][]int, classes, m, d int, perAnchor float64, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	dim := len(imgs[idx[0]])
	conv, err := subspace.NewConverter(dim, m, d)
	if err != nil {
		return nil, nil, err
	}
	x := linalg.NewDense(dim, m)
	var out []*subspace.Subspace
	var labels []int
	for c, ids := range byClass {
		ids = append([]int(nil), ids...)
		rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		na := int(float64(len(ids)) / float64(m) * perAnchor)
		for _, a := range ids[:na] {
			g := append([]int{a}, nbr[a][:m-1]...)
			setColumns(x, imgs, g)
			s, err := conv.FromSet(x)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, s)
			labels = append(labels, c)
		}
	}
	return out, labels, nil
}
