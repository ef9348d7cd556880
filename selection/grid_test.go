package selection

import (
	"reflect"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// TestDefaultSearch: the search of `grlgq train -tune` starts with its
// references (the package defaults, 1-NN), then 1-NN on fewer angles,
// then the trainings drawn from DefaultSpace, the same list every call;
// for single images no setting places a prototype at a training sample
// and the defaults are the one reference.
func TestDefaultSearch(t *testing.T) {
	ss, opt := DefaultSearch(8, false)
	if !reflect.DeepEqual(opt, DefaultOptions()) || opt.Preferred != 2 || len(opt.Rungs) == 0 {
		t.Fatalf("options %+v", opt)
	}
	def := Setting{Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: model.DefaultEta, Epochs: model.DefaultEpochs}
	if ss[0] != def || !ss[1].NearestNeighbour() || ss[1].Dim != 0 {
		t.Fatalf("references %v, %v", ss[0], ss[1])
	}
	again, _ := DefaultSearch(8, false)
	if !reflect.DeepEqual(ss, again) {
		t.Fatal("DefaultSearch differs between calls")
	}
	dims, gammas, betas, protos := map[int]bool{}, map[float64]bool{}, map[float64]bool{}, map[int]bool{}
	chains := map[chain]bool{}
	for i, s := range ss {
		if err := s.check(); err != nil {
			t.Fatalf("setting %d (%s): %v", i+1, s, err)
		}
		if s.Dim > 8 {
			t.Errorf("setting %d (%s): d above the sets' 8 columns", i+1, s)
		}
		dims[s.Dim], gammas[s.Gamma], betas[s.Beta], protos[s.Prototypes] = true, true, true, true
		if s.Epochs > 0 {
			chains[s.chain()] = true
		}
	}
	if len(chains) != DefaultSamples+1 {
		t.Errorf("%d trainings, want the defaults and %d drawn", len(chains), DefaultSamples)
	}
	for _, want := range []int{0, 5, 3} {
		if !dims[want] {
			t.Errorf("no setting of d=%d (0: the sets' 8): %v", want, dims)
		}
	}
	if len(gammas) < 4 || len(betas) < 3 || len(protos) < 4 {
		t.Errorf("too few values drawn: γ %v, β %v, prototypes %v", gammas, betas, protos)
	}
	ss, opt = DefaultSearch(8, true)
	if ss[0] != def || opt.Preferred != 1 || opt.Confidence != DefaultConfidence {
		t.Fatalf("images: %v, %+v", ss[0], opt)
	}
	for _, s := range ss {
		if s.Prototypes < 0 || s.Dim != 0 {
			t.Errorf("images: %v places a prototype at every training sample or truncates", s)
		}
	}
}

// TestSpaceSample: distinct trainings, each at every epoch count, and a
// space smaller than asked gives all it has.
func TestSpaceSample(t *testing.T) {
	sp := Space{Prototypes: []int{1, 2}, Etas: []float64{0.1}, Epochs: []int{3, 6}}
	ss := sp.Sample(10, 1)
	if len(ss) != 4 {
		t.Fatalf("%d settings from a space of 2 trainings x 2 epochs: %v", len(ss), ss)
	}
	if ss[0].Epochs != 3 || ss[1].Epochs != 6 || ss[0].chain() != ss[1].chain() || ss[0].chain() == ss[2].chain() {
		t.Errorf("order: %v", ss)
	}
}

// TestSettingApplyKeeps pins what Setting's documentation says a zero
// field does: Init and Relevance replace the base's with their zeros,
// Epochs 0 keeps the base's Epochs and Eta, and Gamma, Beta, Dim and
// Distance keep the base's when zero (a Chordal base stays Chordal).
func TestSettingApplyKeeps(t *testing.T) {
	base := model.DefaultOptions()
	base.Train.Init, base.Model.Relevance = model.InitPCA, model.RelevanceLocal
	base.Train.Epochs, base.Train.Eta, base.Train.Gamma = 77, 0.5, 0.003
	base.Train.Activation = model.Identity
	base.Model.SubspaceDim, base.Model.Distance = 5, model.Chordal
	for _, c := range []struct {
		s             Setting
		wantEpochs    int
		wantEta       float64
		wantGamma     float64
		wantIdentity  bool
		wantDim       int
		wantDistance  model.Distance
		wantInit      model.InitKind
		wantRelevance model.RelevanceKind
	}{
		{Setting{Prototypes: 2, Eta: 0.1, Epochs: 3}, 3, 0.1, 0.003, true, 5, model.Chordal, model.InitSample, model.RelevanceGlobal},
		{Setting{Prototypes: 2, Eta: 0.1}, 77, 0.5, 0.003, true, 5, model.Chordal, model.InitSample, model.RelevanceGlobal},
		{Setting{Prototypes: 2, Eta: 0.1, Epochs: 3, Gamma: 0.01, Beta: 2, Dim: 3, Distance: model.Chordal, Init: model.InitPCA, Relevance: model.RelevanceNone},
			3, 0.1, 0.01, false, 3, model.Chordal, model.InitPCA, model.RelevanceNone},
	} {
		o := c.s.Apply(base, []int{0, 1})
		if o.Train.Epochs != c.wantEpochs || o.Train.Eta != c.wantEta || o.Train.Gamma != c.wantGamma ||
			(o.Train.Activation == model.Identity) != c.wantIdentity || o.Model.SubspaceDim != c.wantDim ||
			o.Model.Distance != c.wantDistance || o.Train.Init != c.wantInit || o.Model.Relevance != c.wantRelevance ||
			o.Model.PrototypesPerClass != 2 {
			t.Errorf("%v over the base: %+v %+v", c.s, o.Model, o.Train)
		}
	}
}
