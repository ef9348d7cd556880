package subspace

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// TestFromImages: the images as columns give FromSet's subspace bit for
// bit, on a tall and a wide set, twice with one converter (its matrix is
// reused); a wrong count or length is an error.
func TestFromImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][3]int{{40, 7, 3}, {5, 9, 2}} {
		dim, m, d := sh[0], sh[1], sh[2]
		c, err := NewConverter(dim, m, d)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			imgs := make([][]float64, m)
			x := linalg.NewDense(dim, m)
			for k := range imgs {
				imgs[k] = make([]float64, dim)
				for r := range imgs[k] {
					imgs[k][r] = rng.NormFloat64()
					x.Set(r, k, imgs[k][r])
				}
			}
			want, err := c.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.FromImages(imgs)
			if err != nil {
				t.Fatal(err)
			}
			one, err := FromImages(imgs, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Subspace{got, one} {
				if !slices.Equal(s.Basis.Data, want.Basis.Data) || !slices.Equal(s.Values, want.Values) || !slices.Equal(s.Right.Data, want.Right.Data) {
					t.Fatalf("%v: FromImages differs from FromSet", sh)
				}
			}
		}
		if _, err := c.FromImages(make([][]float64, m+1)); err == nil {
			t.Errorf("%v: %d images: no error", sh, m+1)
		}
		bad := make([][]float64, m)
		for k := range bad {
			bad[k] = make([]float64, dim)
		}
		bad[m-1] = bad[m-1][:dim-1]
		if _, err := c.FromImages(bad); err == nil {
			t.Errorf("%v: short image: no error", sh)
		}
	}
	if _, err := FromImages(nil, 1); err == nil {
		t.Error("no images: no error")
	}
}

// TestFromSetShape: a malformed set is an error, not a panic.
func TestFromSetShape(t *testing.T) {
	c, err := NewConverter(6, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	good := linalg.NewDense(6, 3)
	for _, x := range []*linalg.Dense{
		nil,
		linalg.NewDense(6, 2),
		{Rows: 6, Cols: 3, Stride: 2, Data: good.Data},
		{Rows: 6, Cols: 3, Stride: good.Stride, Data: good.Data[:5*good.Stride+2]},
	} {
		if _, err := c.FromSet(x); err == nil {
			t.Errorf("%+v: no error", x)
		}
	}
}
