module github.com/grlgq/grlgq

go 1.26
