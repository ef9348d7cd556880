package dataset

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
)

// twoBases returns 2 bases of 3 x 2, C order: e1,e2 and e2,e3 (orthonormal).
func twoBases() []float64 {
	return []float64{
		1, 0, 0, 1, 0, 0, // basis 0: rows (1,0) (0,1) (0,0)
		0, 0, 1, 0, 0, 1, // basis 1: rows (0,0) (1,0) (0,1)
	}
}

func TestLoadNPY(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "b.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases())))
	labels := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{2}, i64le([]int64{4, -1})))
	ds, err := (NPY{Data: data, Labels: labels}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 2 || ds.Dim != 3 || ds.SubDim != 2 || ds.Images != nil {
		t.Fatalf("%d bases of %dx%d", ds.Len(), ds.Dim, ds.SubDim)
	}
	if ds.Bases[1][2] != 1 || ds.Bases[1][5] != 1 || ds.Bases[0][3] != 1 {
		t.Fatalf("bases %v", ds.Bases)
	}
	if ds.Classes[0] != "-1" || ds.Labels[0] != 1 {
		t.Fatalf("classes %v labels %v", ds.Classes, ds.Labels)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}

	// The same bases in Fortran order, float32, gzipped, uint8 labels.
	var f []byte
	c := twoBases()
	for k := 0; k < 2; k++ { // d
		for j := 0; j < 3; j++ { // D
			for i := 0; i < 2; i++ { // N
				f = binary.LittleEndian.AppendUint32(f, math.Float32bits(float32(c[(i*3+j)*2+k])))
			}
		}
	}
	data2 := writeFile(t, dir, "f.npy.gz", gz(npyBytes("<f4", true, []int{2, 3, 2}, f)))
	labels2 := writeFile(t, dir, "l2.npy", npyBytes("|u1", false, []int{2}, []byte{4, 0}))
	ds2, err := (NPY{Data: data2, Labels: labels2}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Bases {
		for j := range ds.Bases[i] {
			if ds.Bases[i][j] != ds2.Bases[i][j] {
				t.Fatalf("Fortran order: basis %d = %v, want %v", i, ds2.Bases[i], ds.Bases[i])
			}
		}
	}

	// Not orthonormal: rejected, or re-orthonormalised on request.
	bad := twoBases()
	bad[2] = 1 // basis 0 row 1 = (1, 1): columns (1,1,0) and (0,1,0)
	dataBad := writeFile(t, dir, "bad.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(bad)))
	_, err = (NPY{Data: dataBad, Labels: labels}).Load(context.Background())
	wantErr(t, err, ErrValue, "basis 0 is not orthonormal", dataBad)
	ds3, err := (NPY{Data: dataBad, Labels: labels, Reorthonormalize: true}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := ds3.Bases[0]
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			dot := b[i]*b[j] + b[2+i]*b[2+j] + b[4+i]*b[4+j]
			if want := float64(boolInt(i == j)); math.Abs(dot-want) > 1e-14 {
				t.Fatalf("re-orthonormalised basis %v: column dot (%d,%d) = %g", b, i, j, dot)
			}
		}
	}
	rank1 := twoBases()
	rank1[1], rank1[3] = 1, 0 // basis 0 columns (1,0,0) and (1,0,0)
	dataRank := writeFile(t, dir, "rank.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(rank1)))
	_, err = (NPY{Data: dataRank, Labels: labels, Reorthonormalize: true}).Load(context.Background())
	wantErr(t, err, ErrValue, "basis 0", "rank")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestLoadNPYErrors(t *testing.T) {
	dir := t.TempDir()
	good := npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases()))
	labels := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{2}, i64le([]int64{1, 2})))
	nanBases := twoBases()
	nanBases[7] = math.NaN()
	cases := []struct {
		name   string
		data   []byte
		labels []byte
		kind   error
		frags  []string
	}{
		{"magic", append([]byte("\x93NUMPZ"), good[6:]...), nil, ErrFormat, []string{"npy magic"}},
		{"version", append([]byte("\x93NUMPY\x04\x00"), good[8:]...), nil, ErrUnsupported, []string{"version 4.0"}},
		{"truncated", good[:len(good)-3], nil, ErrSize, []string{"needs 96 bytes of data, file has 93"}},
		{"trailing", append(append([]byte{}, good...), 0), nil, ErrSize, []string{"file has 97"}},
		{"header cut", good[:20], nil, ErrSize, []string{"npy header: file too short"}},
		{"dtype", npyBytes("<c16", false, []int{2, 3, 2}, nil), nil, ErrFormat, []string{"dtype"}},
		{"2-D", npyBytes("<f8", false, []int{2, 6}, f64le(twoBases())), nil, ErrSize, []string{"want (N, D, d)"}},
		{"d > D", npyBytes("<f8", false, []int{1, 2, 3}, f64le(make([]float64, 6))), nil, ErrSize, []string{"1 <= d <= D"}},
		{"ints", npyBytes("<i8", false, []int{2, 3, 2}, i64le(make([]int64, 12))), nil, ErrSize, []string{"of floats"}},
		{"NaN", npyBytes("<f8", false, []int{2, 3, 2}, f64le(nanBases)), nil, ErrValue, []string{"basis 1, element (0, 1) is NaN"}},
		{"hostile shape", npyBytes("<f8", false, []int{1 << 30, 1 << 30, 1 << 30}, nil), nil, ErrSize, []string{"needs more than 2^63 bytes"}},
		{"16 GiB shape", npyBytes("<f8", false, []int{1 << 20, 1 << 10, 2}, nil), nil, ErrSize, []string{"needs 17179869184 bytes of data, file has 0"}},
		{"16 GiB shape gzip", gz(npyBytes("<f8", false, []int{1 << 20, 1 << 10, 2}, nil)), nil, ErrSize, []string{"more than the", "compressed bytes can hold"}},
		{"label count", nil, npyBytes("<i8", false, []int{3}, i64le([]int64{1, 2, 3})), ErrSize, []string{"3 labels", "has 2 bases"}},
		{"label shape", nil, npyBytes("<i8", false, []int{1, 2}, i64le([]int64{1, 2})), ErrSize, []string{"want (N,)"}},
		{"fractional label", nil, npyBytes("<f8", false, []int{2}, f64le([]float64{1, 0.5})), ErrValue, []string{"label 1 is 0.5"}},
		{"infinite label", nil, npyBytes("<f8", false, []int{2}, f64le([]float64{1, math.Inf(-1)})), ErrValue, []string{"label 1 is -Inf, want an integer"}},
		{"huge label", nil, npyBytes("<i8", false, []int{2}, i64le([]int64{1, 1 << 62})), ErrValue,
			[]string{"label 1 is 4611686018427387904, out of range: want an integer from -9007199254740992 to 9007199254740992"}},
		{"huge float label", nil, npyBytes("<f8", false, []int{2}, f64le([]float64{-1e300, 1})), ErrValue, []string{"label 0 is -1e+300, out of range"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dp, lp := writeFile(t, dir, "d.npy", good), labels
			file := dp
			if c.data != nil {
				dp = writeFile(t, dir, "d.npy", c.data)
			}
			if c.labels != nil {
				lp = writeFile(t, dir, "bad-l.npy", c.labels)
				file = lp
			}
			_, err := (NPY{Data: dp, Labels: lp}).Load(context.Background())
			wantErr(t, err, c.kind, append(c.frags, "dataset: "+file+": ")...)
		})
	}
}

func TestParseNPYHeader(t *testing.T) {
	good := []string{
		"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }",
		`{"descr":"<f8","fortran_order":True,"shape":(2,3,4)}`,
		"{'shape': (5,), 'descr': '|u1', 'fortran_order': False}   \n",
		"{'descr': '>i4', 'fortran_order': False, 'shape': (), }",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }",
	}
	for _, h := range good {
		if _, err := parseNPYHeader(h); err != nil {
			t.Errorf("parseNPYHeader(%q): %v", h, err)
		}
	}
	bad := []string{
		"", "{", "{}", "[1]",
		"{'descr': '<f8', 'fortran_order': False}",
		"{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }",
		"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999,), }",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
		"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}",
		"{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} trailing",
		"{'descr': '<U8', 'fortran_order': False, 'shape': (2,)}",
		"{'descr': '<f8' 'fortran_order': False, 'shape': (2,)}",
		"{'descr: '<f8', 'fortran_order': False, 'shape': (2,)}",
	}
	for _, h := range bad {
		if a, err := parseNPYHeader(h); err == nil {
			t.Errorf("parseNPYHeader(%q) = %+v, want an error", h, a)
		}
	}
}
