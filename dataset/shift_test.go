package dataset

import (
	"slices"
	"testing"
)

func TestShifted(t *testing.T) {
	// 3 wide, 2 high.
	img := []float64{
		1, 2, 3,
		4, 5, 6,
	}
	for _, c := range []struct {
		dx, dy int
		want   []float64
	}{
		{0, 0, img},
		{1, 0, []float64{1, 1, 2, 4, 4, 5}},
		{-1, 0, []float64{2, 3, 3, 5, 6, 6}},
		{0, 1, []float64{1, 2, 3, 1, 2, 3}},
		{0, -1, []float64{4, 5, 6, 4, 5, 6}},
		{2, -1, []float64{4, 4, 4, 4, 4, 4}},
		{-5, 5, []float64{3, 3, 3, 3, 3, 3}},
	} {
		got, err := Shifted(img, 3, 2, c.dx, c.dy)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("shift (%d, %d): %v, want %v", c.dx, c.dy, got, c.want)
		}
	}
	if img[0] != 1 || img[5] != 6 {
		t.Error("Shifted changed its input")
	}
	for _, bad := range [][2]int{{2, 2}, {0, 2}, {3, -2}} {
		if _, err := Shifted(img, bad[0], bad[1], 1, 0); err == nil {
			t.Errorf("size %v accepted for 6 pixels", bad)
		}
	}
}

func TestWithShifts(t *testing.T) {
	imgs := [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}
	x, y, err := WithShifts(imgs, []int{0, 1}, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{1, 2, 3, 4}, {5, 6, 7, 8},
		{1, 1, 3, 3}, {2, 2, 4, 4}, {1, 2, 1, 2}, {3, 4, 3, 4},
		{5, 5, 7, 7}, {6, 6, 8, 8}, {5, 6, 5, 6}, {7, 8, 7, 8},
	}
	if len(x) != len(want) || !slices.Equal(y, []int{0, 1, 0, 0, 0, 0, 1, 1, 1, 1}) {
		t.Fatalf("%d images, labels %v", len(x), y)
	}
	for i := range want {
		if !slices.Equal(x[i], want[i]) {
			t.Errorf("image %d: %v, want %v", i, x[i], want[i])
		}
	}
	if x0, y0, err := WithShifts(imgs, []int{0, 1}, 2, 2, 0); err != nil || len(x0) != 2 || len(y0) != 2 {
		t.Errorf("by 0: %d images, %v", len(x0), err)
	}
	for _, c := range []struct {
		y     []int
		w, by int
	}{{[]int{0}, 2, 1}, {[]int{0, 1}, 3, 1}, {[]int{0, 1}, 2, -1}} {
		if _, _, err := WithShifts(imgs, c.y, c.w, 2, c.by); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
