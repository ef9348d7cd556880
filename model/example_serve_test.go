package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/grlgq/grlgq/model"
)

// Example_serve puts a model behind a net/http handler. The handlers of
// concurrent requests all call the one *model.Model: its prediction methods
// need no lock and no per-goroutine Predictor (they share one read-only
// copy of the prototypes and classify each image on the request's own
// goroutine), so a server scales with its cores.
func Example_serve() {
	// A small model for single images of 3 x 4 pixels: class c's images lie
	// near c's own 2-dimensional subspace of R^12.
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 12
	centres := [2][2][dim]float64{}
	for c := range centres {
		for j := range centres[c] {
			for r := range centres[c][j] {
				centres[c][j][r] = rng.NormFloat64()
			}
		}
	}
	image := func(c int) []float64 {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		x := make([]float64, dim)
		for r := range x {
			x[r] = a*centres[c][0][r] + b*centres[c][1][r] + 0.05*rng.NormFloat64()
		}
		return x
	}
	var xs [][]float64
	var ys []int
	for i := 0; i < 40; i++ {
		xs, ys = append(xs, image(i%2)), append(ys, i%2)
	}
	opt := model.DefaultOptions()
	opt.Model.SubspaceDim, opt.Model.ClassNames = 2, []string{"left", "right"} // what the model is
	opt.Train.Epochs, opt.Train.Seed = 30, 1                                   // how it is trained
	mdl, _, err := model.Train(context.Background(), opt, model.Images(xs), ys)
	if err != nil {
		panic(err)
	}

	// The handler: a JSON image in, the predicted class out.
	type request struct {
		Image []float64 `json:"image"`
	}
	type response struct {
		Class  string  `json:"class"`
		Margin float64 `json:"margin"`
	}
	handler := func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p, err := mdl.Predict(model.Image(req.Image)) // safe from any number of handlers at once
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		json.NewEncoder(w).Encode(response{Class: mdl.ClassName(p.Label), Margin: p.Margin})
	}
	srv := httptest.NewServer(http.HandlerFunc(handler))
	defer srv.Close()

	// Six clients at once: images of classes 0, 1, 0, 1, ..., and one of
	// the wrong size.
	bodies := make([][]byte, 6)
	for i := range bodies {
		x := image(i % 2)
		if i == 5 {
			x = x[:5]
		}
		bodies[i], _ = json.Marshal(request{Image: x})
	}
	answers := make([]string, len(bodies))
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				answers[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			var out response
			if resp.StatusCode != http.StatusOK {
				answers[i] = resp.Status
				return
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				answers[i] = err.Error()
				return
			}
			answers[i] = fmt.Sprintf("%s (margin > 0.5: %v)", out.Class, out.Margin > 0.5)
		}()
	}
	wg.Wait()
	for i, a := range answers {
		fmt.Printf("request %d: %s\n", i, a)
	}
	// Output:
	// request 0: left (margin > 0.5: true)
	// request 1: right (margin > 0.5: true)
	// request 2: left (margin > 0.5: true)
	// request 3: right (margin > 0.5: true)
	// request 4: left (margin > 0.5: true)
	// request 5: 422 Unprocessable Entity
}
