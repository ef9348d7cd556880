package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/pixels"
)

// Example_serve puts a model behind a net/http handler that classifies
// uploaded image files: the server path of the public API. The handler
// decodes each uploaded file with image.Decode (PNG here; register the
// formats you accept), turns the images into one sample at the model's
// image size with Model.SampleFromImages (gray pixels by package pixels'
// rule, the one the folder loaders train on, resized when the upload's size
// differs; one image is a single-image sample, d or more a set), and
// predicts with Model.Predict. The handlers of concurrent requests all call
// the one *model.Model: its methods need no lock and no per-goroutine
// state (they share one read-only copy of the prototypes and classify on
// the request's own goroutine), so a server scales with its cores.
func Example_serve() {
	// A small model of 8x8 gray images: a bright horizontal bar ("rows") or
	// a vertical one ("columns") at any position, trained on single images
	// (each a 1-D subspace) with prototypes of d = 8. The training photos
	// are 16x16, made 8x8 pixel vectors by package pixels (the rule
	// SampleFromImages applies to uploads), and the model is told its image
	// size so that SampleFromImages can resize uploads of any size.
	const size = 8
	rng := rand.New(rand.NewPCG(3, 4))
	bar := func(class, side int) image.Image {
		img := image.NewGray(image.Rect(0, 0, side, side))
		k := side / size // bars k pixels wide, at a multiple of k
		at := rng.IntN(size) * k
		for y := range side {
			for x := range side {
				v := 20 + rng.IntN(30)
				if p := []int{y, x}[class]; p >= at && p < at+k {
					v = 200 + rng.IntN(55)
				}
				img.SetGray(x, y, color.Gray{Y: uint8(v)})
			}
		}
		return img
	}
	var xs [][]float64
	var ys []int
	for i := range 80 {
		xs, ys = append(xs, pixels.Gray(bar(i%2, 16), size, size)), append(ys, i%2)
	}
	opt := model.DefaultOptions()
	opt.Model.SubspaceDim, opt.Model.ClassNames = size, []string{"rows", "columns"} // what the model is
	opt.Model.ImageWidth, opt.Model.ImageHeight = size, size
	opt.Train.Init, opt.Train.Epochs, opt.Train.Seed = model.InitPCA, 10, 1 // how it is trained
	mdl, _, err := model.Train(context.Background(), opt, model.Images(xs), ys)
	if err != nil {
		panic(err)
	}

	// The handler: image files in (multipart field "image", one or more),
	// the predicted class out.
	type response struct {
		Class  string  `json:"class"`
		Margin float64 `json:"margin"`
	}
	handler := func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var imgs []image.Image
		for _, fh := range r.MultipartForm.File["image"] {
			f, err := fh.Open()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			img, _, err := image.Decode(f)
			f.Close()
			if err != nil {
				http.Error(w, fh.Filename+": "+err.Error(), http.StatusBadRequest)
				return
			}
			imgs = append(imgs, img)
		}
		x, err := mdl.SampleFromImages(imgs) // resized to the model's 8x8
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		p, err := mdl.Predict(x) // safe from any number of handlers at once
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		json.NewEncoder(w).Encode(response{Class: mdl.ClassName(p.Label), Margin: p.Margin})
	}
	srv := httptest.NewServer(http.HandlerFunc(handler))
	defer srv.Close()

	// Seven clients at once, each uploading PNG files: one bar of class 0,
	// 1, 0, 1 (16x16, 32x32, 16x16, 8x8); then ten 16x16 bars of class 1 (a
	// set); three images (a set needs d = 8 or more); a file that is no
	// image.
	upload := func(files ...[]byte) (body []byte, contentType string) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		for i, f := range files {
			part, _ := mw.CreateFormFile("image", fmt.Sprintf("upload%d.png", i))
			part.Write(f)
		}
		mw.Close()
		return b.Bytes(), mw.FormDataContentType()
	}
	pngOf := func(img image.Image) []byte {
		var b bytes.Buffer
		png.Encode(&b, img)
		return b.Bytes()
	}
	var requests [][][]byte
	for i, side := range []int{16, 32, 16, 8} {
		requests = append(requests, [][]byte{pngOf(bar(i%2, side))})
	}
	var set, three [][]byte
	for range 10 {
		set = append(set, pngOf(bar(1, 16)))
	}
	for range 3 {
		three = append(three, pngOf(bar(0, 16)))
	}
	requests = append(requests, set, three, [][]byte{[]byte("not a picture")})
	answers := make([]string, len(requests))
	var wg sync.WaitGroup
	for i, files := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, ct := upload(files...)
			resp, err := http.Post(srv.URL, ct, bytes.NewReader(body))
			if err != nil {
				answers[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				answers[i] = resp.Status
				return
			}
			var out response
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				answers[i] = err.Error()
				return
			}
			answers[i] = fmt.Sprintf("%s (margin > 0.2: %v)", out.Class, out.Margin > 0.2)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		fmt.Printf("request %d (%d files): %s\n", i, len(requests[i]), a)
	}
	// Output:
	// request 0 (1 files): rows (margin > 0.2: true)
	// request 1 (1 files): columns (margin > 0.2: true)
	// request 2 (1 files): rows (margin > 0.2: true)
	// request 3 (1 files): columns (margin > 0.2: true)
	// request 4 (10 files): columns (margin > 0.2: true)
	// request 5 (3 files): 422 Unprocessable Entity
	// request 6 (1 files): 400 Bad Request
}
