// Package digits is a small labelled data set embedded in the module, for
// examples, tests and `grlgq demo` (like scikit-learn's load_digits): the
// test part of the UCI "Optical Recognition of Handwritten Digits" data
// set, 1,797 images of 8x8 pixels with values 0-16, labels 0-9, by E.
// Alpaydin and C. Kaynak, UCI Machine Learning Repository (1998),
// https://doi.org/10.24432/C50P49, licensed CC BY 4.0 (see README.md
// beside this file, and Attribution, the credit line to show).
//
// Load returns the digits as a dataset.Dataset of single images (pixels
// scaled to [0, 1], classes "0" to "9"); CSV returns the embedded file
// itself. The package parses its own file (no file system is read) and
// allocates a new Dataset at every Load.
package digits
