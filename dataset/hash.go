package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
)

// ContentHash returns the SHA-256 (hex) of the data as loaded: the shape
// (D, width, height, d), the class names, the labels, the sets (name,
// label, images) and every pixel or basis value's float64 bits, each
// length-prefixed, little-endian. It does not depend on Source (the same
// data from another path hashes the same) but on every value after
// decoding, resizing and pixel scaling: the identity of the data a model
// was trained on, for its provenance. It reads every value once
// (MNIST's 47 M values: a fraction of a second).
func (ds *Dataset) ContentHash() string {
	h := sha256.New()
	buf := make([]byte, 0, 1<<16)
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	u64 := func(v uint64) {
		if len(buf)+8 > cap(buf) {
			flush()
		}
		buf = binary.LittleEndian.AppendUint64(buf, v)
	}
	str := func(s string) {
		u64(uint64(len(s)))
		flush()
		h.Write([]byte(s))
	}
	floats := func(x []float64) {
		u64(uint64(len(x)))
		for _, v := range x {
			u64(math.Float64bits(v))
		}
	}
	for _, v := range []int{ds.Dim, ds.Width, ds.Height, ds.SubDim} {
		u64(uint64(v))
	}
	u64(uint64(len(ds.Classes)))
	for _, c := range ds.Classes {
		str(c)
	}
	u64(uint64(len(ds.Labels)))
	for _, l := range ds.Labels {
		u64(uint64(int64(l)))
	}
	u64(uint64(len(ds.Sets)))
	for _, s := range ds.Sets {
		str(s.Name)
		u64(uint64(int64(s.Label)))
		u64(uint64(len(s.Images)))
		for _, i := range s.Images {
			u64(uint64(i))
		}
	}
	u64(uint64(len(ds.Images)))
	for _, x := range ds.Images {
		floats(x)
	}
	u64(uint64(len(ds.Bases)))
	for _, x := range ds.Bases {
		floats(x)
	}
	flush()
	return hex.EncodeToString(h.Sum(nil))
}
