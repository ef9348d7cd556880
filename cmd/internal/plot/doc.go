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
// The axes, lines, bars, heat maps, legends, colour bars, fonts (Liberation,
// which has the Greek letters the labels use) and the three output formats
// are gonum/plot's. What this package adds is what it does not do: the
// choice of figures and their labels, a gray colour map for images, pixel
// tiles drawn from row-major values (blocks of pixels, so that no viewer
// smooths them), and pages that lay out captioned tiles, colour bars and
// several plots. It reads models, histories and explanations of package
// model; only the grlgq command imports it (never grlgq-edge).
//
// Every function takes its data by value and never keeps or changes the
// caller's slices; a Figure reads them only while it is built. NaN and ±Inf
// values are skipped (a line breaks, a pixel or cell is drawn gray).
//
// Layout: an image of h x w pixels is a []float64 of h*w values, row-major
// (pixel (r, c) at r*w+c), as in package dataset.
package plot
