//go:build amd64 && !purego

package kernels

// impls lists every implementation this build has, fastest first, each
// with the dispatch booleans that select it and whether this CPU can run
// it. restoreImpl puts back the choice init made.
func impls() []impl {
	return []impl{
		{name: "avx512", ok: hasAVX512, set: func() { useAVX512, useAVX2 = true, true }},
		{name: "avx2", ok: hasAVX2, set: func() { useAVX512, useAVX2 = false, true }},
		{name: "generic", ok: true, set: func() { useAVX512, useAVX2 = false, false }},
	}
}

func restoreImpl() { useAVX512, useAVX2 = hasAVX512, hasAVX2 }
