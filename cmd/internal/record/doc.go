// Package record is what grlgq train keeps of a run besides its model:
// the checkpoint it writes while training (Checkpoint: the latest model,
// atomically, every N epochs and when the run is interrupted) and the
// provenance it records in the model's metadata (Provenance: the tool,
// when, the data and its preprocessing; docs/model-format.md lists the
// keys). It imports model, dataset and cmd/internal/base; it prints only
// the one line of an interrupted run's checkpoint.
package record
