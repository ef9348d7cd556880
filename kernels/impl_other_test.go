//go:build !amd64 || purego

package kernels

func impls() []impl {
	return []impl{{name: "generic", ok: true, set: func() {}}}
}

func restoreImpl() {}
