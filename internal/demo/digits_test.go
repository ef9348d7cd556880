package demo

import "testing"

func TestDigits(t *testing.T) {
	x, y, err := Digits()
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 1797 || len(y) != 1797 {
		t.Fatalf("got %d images, %d labels, want 1797", len(x), len(y))
	}
	var counts [10]int
	for i, img := range x {
		if len(img) != 64 {
			t.Fatalf("image %d has %d pixels", i, len(img))
		}
		for _, v := range img {
			if v < 0 || v > 1 {
				t.Fatalf("image %d: pixel %g outside [0, 1]", i, v)
			}
		}
		counts[y[i]]++
	}
	for c, n := range counts {
		if n < 170 {
			t.Errorf("class %d has %d digits", c, n)
		}
	}
}
