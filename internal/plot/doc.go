// Package plot builds the pictures the grlgq command writes, with
// gonum.org/v1/plot: learning curves, relevance profiles (per prototype for
// local relevances) and their course over the epochs, confusion matrices,
// pages of prototypes, and explanation pages of single samples.
//
// Every picture is a *Figure that renders to an io.Writer as PNG, SVG or
// PDF (Render): where the bytes go, and how a file is replaced, is the
// caller's business. A function that can produce several pages returns one
// Figure per page (PageName names their files).
//
// What gonum/plot does not do is all this package adds: a gray colour map
// for images, pixel tiles drawn from row-major values, a page layout of
// captioned tiles with colour bars, and text placed on a page.
//
// Every function takes its data by value and never keeps or changes the
// caller's slices; a Figure reads them only while it is built. NaN and ±Inf
// values are skipped (a line breaks, a pixel or cell is drawn gray).
//
// Layout: an image of h x w pixels is a []float64 of h*w values, row-major
// (pixel (r, c) at r*w+c), as in package dataset.
package plot
