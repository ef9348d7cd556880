package bench

import (
	"testing"

	"github.com/grlgq/grlgq/model"
)

// BenchmarkEpochChordal is BenchmarkEpoch with the chordal distance
// (Config.Distance = model.Chordal): the same shapes, data, start and
// sub-benchmarks (ours, ours-1worker, floor), so that the two distances'
// epochs compare within one run (its values-skipped and enclosed show how
// much more the chordal bounds rule out).
func BenchmarkEpochChordal(b *testing.B) {
	for _, s := range epochShapes {
		b.Run(s.name, func(b *testing.B) {
			x, y := epochData(b, s)
			o := model.DefaultOptions()
			o.Model.Distance = model.Chordal
			o.Train.Init, o.Train.Schedule, o.Train.Seed = model.InitRandom, model.ScheduleConstant, 1
			epochBench(b, o, x, y)
		})
	}
}
