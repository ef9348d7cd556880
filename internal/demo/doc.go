// Package demo embeds the small data set that `grlgq demo` trains on: the
// UCI optical digits (1,797 images of 8x8 pixels, values 0-16, labels 0-9),
// by E. Alpaydin and C. Kaynak, UCI Machine Learning Repository, licensed
// CC BY 4.0 (see README.md beside this file for the attribution).
//
// The package imports only the standard library; it parses the CSV itself so
// that it does not depend on the loaders of package dataset.
package demo
