// Package bench holds the project's side-by-side benchmarks: each one runs
// our implementation and the reference (gonum, or the plain reference model)
// on the same inputs in one `go test -bench` run, so that their ratio can be
// read off one output. Inputs are random orthonormal bases from a fixed seed.
//
//	go test ./bench -run '^$' -bench . -count 5 | tee new.txt
//	benchstat new.txt
package bench
