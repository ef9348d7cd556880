// Package plot draws the few pictures the grlgq command writes: line charts
// (learning curves), bar charts (relevance profiles), heat maps (pixel
// contributions, prototype columns) and grids that put several of them on
// one page, all as PNG.
//
// It is deliberately small: image/draw for pixels, golang.org/x/image's
// basicfont (7x13 bitmap) for text, no anti-aliasing. Every function takes
// its data by value and never keeps or changes the caller's slices. NaN and
// ±Inf values are skipped (a line breaks at them, a bar or pixel is drawn
// empty), an empty series gives an empty frame: nothing here panics on data.
//
// Layout: an image of h x w pixels is a []float64 of h*w values, row-major
// (pixel (r, c) at r*w+c), as in package dataset.
package plot
