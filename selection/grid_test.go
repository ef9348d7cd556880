package selection

import (
	"reflect"
	"testing"
)

// TestDefaultSearch: the search of `grlgq train -tune` is DefaultSettings
// with DefaultOptions for sets, and without the nearest-neighbour rows,
// one reference, for single images.
func TestDefaultSearch(t *testing.T) {
	ss, opt := DefaultSearch(false)
	if !reflect.DeepEqual(ss, DefaultSettings()) || !reflect.DeepEqual(opt, DefaultOptions()) {
		t.Fatalf("sets: %v, %+v", ss, opt)
	}
	ss, opt = DefaultSearch(true)
	if len(ss) != len(DefaultSettings())-1 || ss[0] != DefaultSettings()[0] || opt.Preferred != 1 || opt.Confidence != DefaultConfidence {
		t.Fatalf("images: %v, %+v", ss, opt)
	}
	for _, s := range ss {
		if s.Prototypes < 0 {
			t.Errorf("images: %v places a prototype at every training sample", s)
		}
	}
}
