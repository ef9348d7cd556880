// Package predict applies a trained model to a data set, the daily step
// after training: the data's samples made ready for the model (Prepare:
// image sets as subspaces, single images, bases, each with its name and
// the model's class of its label, if it has one), every sample's
// prediction as one row of a table (Run, NewTable: index, name, predicted
// class, the two margins, rejected flag, class probabilities, distances),
// and the table's CSV, JSON and text forms (Table.WriteCSV, WriteJSON,
// WriteText), which `grlgq predict` prints or writes (-o). All and Score
// are the model's batch prediction and score (model.Model.PredictBatchTo,
// model.Model.Score) with a context, checked between blocks of Block
// samples: an interrupted `grlgq eval` stops there.
//
//	w, h := m.ImageSize() // the size m was trained on (0, 0 if not recorded)
//	ds, err := dataset.LoadAt(ctx, dataset.Folder{Root: "new"}, w, h) // ROOT/<set>/<images>: no labels
//	s, err := predict.Prepare(m, ds, dataset.EvalOptions{}) // D 0: m's d
//	tab, err := predict.Run(ctx, m, s)
//	err = tab.WriteCSV(f)
//
// dataset.LoadAt decodes the images at the model's image size (the folder example),
// where a plain Folder load keeps them at theirs, which a model trained
// with a resize refuses.
//
// Data may have labels or not (dataset.Dataset.Labelled); labelled data
// are scored as well (Row.True, Row.Correct, Row.Mu, Table.Correct),
// except the samples of classes the model does not know, predicted but
// not scored (Table.Unscored, Table.Unknown). The data's classes are
// matched to the model's by name; a model trained without
// model.Config.ClassNames knows them by index only when the data have as
// many classes as it has, and else knows none of them.
//
// # Names and numbers
//
// A row's Name is its set's name (folder data: the set folder, "class/set"
// for labelled trees), its image's file, or "row N" for an image or basis
// of a format that holds many in one file (dataset.Dataset.ItemName).
// Every index is 0-based: Row.Index is the sample's place in the data
// (what `grlgq explain -samples` takes), rows count from 0.
//
// # Margins
//
// Row.Margin is the label-free margin (model.Prediction.Margin, in [0,
// 1], larger is surer, what the reject threshold compares), Row.Mu the
// paper's μ, present only for a sample whose label the model knows
// (negative when right): see "Two margins" in package model.
//
// # Errors
//
// Data that do not fit the model (another image size, EvalOptions.D not
// the model's d) are errors wrapping model.ErrData. Predictions given to
// NewTable or Samples.Misclassified that are not one per sample (as All
// returns them), or name a class the model does not have, are a
// programming error and panic ("predict: ..."), as wrong counts do in
// package score.
//
// The package reads no files and writes only to the io.Writer it is given; it imports model,
// dataset and score, which never import it.
package predict
