//go:build !purego

package paper

// purego: see purego_on_test.go.
const purego = false
