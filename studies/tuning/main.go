// Command tuning is the study behind selection.DefaultSearch and the
// model's defaults (docs/tuning.md): it generates image-set collections of
// varied difficulty, class counts, sizes and imbalance (gen.go) and runs,
// on random stratified halves of each, the tuner of `grlgq train -tune`,
// the defaults, fixed settings and the baselines, all on the same splits.
// It is a study, not part of the module.
//
//	go run . -mode time            # the tuner's time on 250 sets of 400 x 8
//	go run . -mode eval -seeds 101-108 -splits 4
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/grlgq/grlgq/model"
)

func main() {
	mode := flag.String("mode", "eval", "time, eval, fixed or describe")
	seeds := flag.String("seeds", "1-8", "collections: seeds a-b or a,b,c")
	splits := flag.Int("splits", 4, "random stratified halves per collection")
	workers := flag.Int("workers", 2, "goroutines")
	noTune := flag.Bool("notune", false, "eval: fixed settings and baselines only")
	fixedList := flag.String("fixed", "", "also score these fixed settings (eval): name=flags;... see fixedSettings")
	flag.Parse()
	ctx := context.Background()
	var err error
	switch *mode {
	case "epoch":
		err = epochTime(ctx, *workers)
	case "eval":
		err = evalAll(ctx, parseSeeds(*seeds), *splits, *workers, *fixedList, *noTune)
	case "time":
		err = timeTune(ctx, *workers)
	case "difficulty":
		err = difficulty(ctx, parseSeeds(*seeds), *workers)
	case "describe":
		for _, s := range parseSeeds(*seeds) {
			fmt.Println(randomSpec(s))
		}
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func parseSeeds(s string) []uint64 {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(f, "-")
		lo, _ := strconv.ParseUint(a, 10, 64)
		hi := lo
		if ok {
			hi, _ = strconv.ParseUint(b, 10, 64)
		}
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
	}
	return out
}

// bigSpec is the budget's shape: 250 sets of 400 x 8, 10 classes.
func bigSpec() spec {
	s := randomSpec(1)
	s.Classes, s.Sets, s.Modes = 10, make([]int, 10), 2
	for c := range s.Sets {
		s.Sets[c] = 25
	}
	s.Images = 30
	return s
}

func epochTime(ctx context.Context, workers int) error {
	x, y, err := generate(bigSpec())
	if err != nil {
		return err
	}
	for _, p := range []int{1, 3} {
		o := model.DefaultOptions()
		o.Model.PrototypesPerClass = p
		o.Train.Epochs, o.Train.Workers = 10, workers
		t0 := time.Now()
		if _, _, err := model.Train(ctx, o, model.Sets(x[:200]), y[:200]); err != nil {
			return err
		}
		fmt.Printf("protos %d: %v per epoch on 200 sets, %d workers\n", p, time.Since(t0)/10, workers)
	}
	return nil
}
