module github.com/grlgq/grlgq/studies/bounds

go 1.26.0
