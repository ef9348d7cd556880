module github.com/grlgq/grlgq/studies/tuning

go 1.26.0

require github.com/grlgq/grlgq v0.0.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/image v0.47.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/grlgq/grlgq => ../..
