package dataset

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/linalg"
)

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header dictionary (numpy itself refuses headers
// over 10,000 bytes unless told otherwise).
const maxNPYHeader = 1 << 16

// npyArray is a decoded .npy array.
type npyArray struct {
	shape   []int
	fortran bool
	kind    byte // 'f', 'i', 'u'
	size    int  // bytes per element
	order   binary.ByteOrder
	data    []byte
}

func (a *npyArray) len() int { return len(a.data) / a.size }

// at returns element i (in storage order) as float64.
func (a *npyArray) at(i int) float64 {
	switch a.kind {
	case 'f':
		b := a.data[i*a.size:]
		if a.size == 4 {
			return float64(math.Float32frombits(a.order.Uint32(b)))
		}
		return math.Float64frombits(a.order.Uint64(b))
	case 'i':
		return float64(int64(a.bits(i)))
	default:
		return float64(a.bits(i))
	}
}

// bits returns element i (in storage order) of an integer array in 64
// bits: sign-extended for kind 'i' (an int64), zero-extended for 'u' (a
// uint64).
func (a *npyArray) bits(i int) uint64 {
	b := a.data[i*a.size:]
	if a.kind == 'i' {
		switch a.size {
		case 1:
			return uint64(int64(int8(b[0])))
		case 2:
			return uint64(int64(int16(a.order.Uint16(b))))
		case 4:
			return uint64(int64(int32(a.order.Uint32(b))))
		}
		return a.order.Uint64(b)
	}
	switch a.size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(a.order.Uint16(b))
	case 4:
		return uint64(a.order.Uint32(b))
	}
	return a.order.Uint64(b)
}

// readNPY reads one .npy array (format versions 1 to 3) of a plain numeric
// dtype: little- or big-endian float32/64, int8..64, uint8..64.
func readNPY(s *source) (*npyArray, error) {
	var pre [8]byte
	if err := s.readFull(pre[:], "npy magic"); err != nil {
		return nil, err
	}
	if string(pre[:6]) != npyMagic {
		return nil, s.errf(ErrFormat, "npy magic %q, want %q", pre[:6], npyMagic)
	}
	major := pre[6]
	var hlen int64
	switch major {
	case 1:
		var b [2]byte
		if err := s.readFull(b[:], "npy header length"); err != nil {
			return nil, err
		}
		hlen = int64(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if err := s.readFull(b[:], "npy header length"); err != nil {
			return nil, err
		}
		hlen = int64(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, s.errf(ErrUnsupported, "npy format version %d.%d, want 1.x, 2.x or 3.x", major, pre[7])
	}
	if hlen > maxNPYHeader {
		return nil, s.errf(ErrFormat, "npy header of %d bytes (at most %d)", hlen, maxNPYHeader)
	}
	// Grown as the header arrives: a length field alone allocates nothing.
	hbuf, err := s.readUpTo(hlen, "npy header")
	if err != nil {
		return nil, err
	}
	a, err := parseNPYHeader(string(hbuf))
	if err != nil {
		return nil, s.errf(ErrFormat, "npy header %q: %v", strings.TrimSpace(string(hbuf)), err)
	}
	pre0 := int64(len(pre)) + 2
	if major > 1 {
		pre0 += 2
	}
	avail := s.maxBytes() - pre0 - hlen
	total, ok := shapeBytes(a.shape, int64(a.size))
	switch {
	case !ok:
		return nil, s.errf(ErrSize, "npy shape %v of %d-byte elements needs more than 2^63 bytes", a.shape, a.size)
	case s.gzipped && total > avail:
		return nil, s.errf(ErrSize, "npy shape %v of %d-byte elements needs %d bytes, more than the %d compressed bytes can hold", a.shape, a.size, total, s.size)
	case !s.gzipped && total != avail:
		return nil, s.errf(ErrSize, "npy shape %v of %d-byte elements needs %d bytes of data, file has %d", a.shape, a.size, total, avail)
	}
	what := fmt.Sprintf("npy shape %v", a.shape)
	if err := checkLimit(s.name, what, imageset.LimitFileBytes, total, s.lim.FileBytes); err != nil {
		return nil, err
	}
	// Every element becomes a float64 (a basis value or a label).
	if err := checkLimit(s.name, what, imageset.LimitValues, total/int64(a.size), s.lim.TotalValues); err != nil {
		return nil, err
	}
	if a.data, err = s.readExactly(total, "npy data"); err != nil {
		return nil, err
	}
	if err := s.expectEOF(); err != nil {
		return nil, err
	}
	return a, nil
}

// shapeBytes returns elem times the product of dims, and false if that
// overflows int64.
func shapeBytes(dims []int, elem int64) (int64, bool) {
	total := uint64(elem)
	for _, d := range dims {
		hi, lo := bits.Mul64(total, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		total = lo
	}
	return int64(total), true
}

// parseNPYHeader parses the header dictionary, a Python literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (10, 784, 5), }.
func parseNPYHeader(h string) (*npyArray, error) {
	p := &pyLit{s: strings.TrimRight(h, " \n\x00")}
	if !p.eat('{') {
		return nil, fmt.Errorf("not a dictionary")
	}
	a := &npyArray{}
	var descr string
	seen := map[string]bool{}
	for {
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return nil, fmt.Errorf("key: %v", err)
		}
		if !p.eat(':') {
			return nil, fmt.Errorf("missing ':' after %q", key)
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if descr, err = p.str(); err != nil {
				return nil, fmt.Errorf("descr: %v (structured dtypes are not supported)", err)
			}
		case "fortran_order":
			if a.fortran, err = p.boolean(); err != nil {
				return nil, fmt.Errorf("fortran_order: %v", err)
			}
		case "shape":
			if a.shape, err = p.tuple(); err != nil {
				return nil, fmt.Errorf("shape: %v", err)
			}
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return nil, fmt.Errorf("missing ',' or '}' after %q", key)
			}
			break
		}
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("text after the dictionary")
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return nil, fmt.Errorf("want keys 'descr', 'fortran_order' and 'shape'")
	}
	if len(descr) != 3 {
		return nil, fmt.Errorf("dtype %q: %w", descr, ErrUnsupported)
	}
	switch descr[0] {
	case '<', '|', '=':
		a.order = binary.LittleEndian // '=' is native; numpy writes '<' or '>'
	case '>':
		a.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("dtype %q: bad byte order", descr)
	}
	a.kind = descr[1]
	a.size = int(descr[2] - '0')
	ok := false
	switch a.kind {
	case 'f':
		ok = a.size == 4 || a.size == 8
	case 'i', 'u':
		ok = a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8
	}
	if !ok {
		return nil, fmt.Errorf("dtype %q: want float32/64 or an integer type", descr)
	}
	return a, nil
}

// pyLit scans the tiny subset of Python literals found in npy headers.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *pyLit) eat(c byte) bool {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *pyLit) str() (string, error) {
	p.skip()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("want a string")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *pyLit) boolean() (bool, error) {
	p.skip()
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(p.s[p.i:], w) {
			p.i += len(w)
			return w == "True", nil
		}
	}
	return false, fmt.Errorf("want True or False")
}

// tuple reads (), (n,) or (n, m, ...) of non-negative ints.
func (p *pyLit) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("want a tuple")
	}
	dims := []int{}
	for {
		if p.eat(')') {
			return dims, nil
		}
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		// numpy < 2 may write 3L on Python 2.
		d, err := strconv.ParseInt(p.s[p.i:j], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("want a dimension below 2^31 at %q", p.s[p.i:])
		}
		p.i = j
		if p.i < len(p.s) && p.s[p.i] == 'L' {
			p.i++
		}
		dims = append(dims, int(d))
		if len(dims) > 32 {
			return nil, fmt.Errorf("more than 32 dimensions")
		}
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, fmt.Errorf("missing ',' or ')'")
			}
			return dims, nil
		}
	}
}

// NPY is precomputed bases in .npy files (each raw or gzipped): data of
// shape (N, D, d), float64 (or float32), C or Fortran order, and labels
// of shape (N,), integers (or floats with integral values), or the data
// alone (Labels ""): bases without labels.
type NPY struct {
	Data, Labels string
	// Tol is the largest accepted |BᵀB − I| entry of a basis B; 0 means
	// DefaultOrthoTol, 1e-6 (float32 round-off passes, a non-orthonormal
	// basis does not).
	Tol float64
	// Reorthonormalize replaces each basis by an orthonormal basis of its
	// span (CGS2, column by column) instead of rejecting it; a basis of
	// rank < d is still an error.
	Reorthonormalize bool
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// MaxNPYSubDim bounds d, the columns of an npy basis: checking (or
// re-orthonormalising) a D x d basis costs D·d² operations, so a 64 MB file
// of one 2896 x 2896 basis would take half a minute. GRLGQ's own limit is
// 64 (model.MaxSubDim).
const MaxNPYSubDim = 128

// DefaultOrthoTol is NPY's default tolerance.
const DefaultOrthoTol = 1e-6

// String returns the source as npy:DATA[,LABELS].
func (s NPY) String() string {
	if s.Labels == "" {
		return "npy:" + s.Data
	}
	return "npy:" + s.Data + "," + s.Labels
}

// Inputs returns the files Load reads.
func (s NPY) Inputs() []string {
	if s.Labels == "" {
		return []string{s.Data}
	}
	return []string{s.Data, s.Labels}
}

// Load reads the bases (and labels). Each basis must have orthonormal
// columns (see Tol). The shapes are checked against s.Limits before the
// data is read; ctx is checked as the files are read and between bases.
func (s NPY) Load(ctx context.Context) (*Dataset, error) {
	a, err := readNPYFile(ctx, s.Data, s.Limits)
	if err != nil {
		return nil, err
	}
	var l *npyArray
	if s.Labels != "" {
		if l, err = readNPYFile(ctx, s.Labels, s.Limits); err != nil {
			return nil, err
		}
	}
	ds, err := npyDataset(ctx, s.Data, s.Labels, a, l, s)
	return loaded(ctx, s.Data, ds, err)
}

func readNPYFile(ctx context.Context, path string, lim Limits) (*npyArray, error) {
	s, err := open(ctx, path, lim, true)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return readNPY(s)
}

func npyDataset(ctx context.Context, dataPath, labelsPath string, a, l *npyArray, opt NPY) (*Dataset, error) {
	if len(a.shape) != 3 || a.kind != 'f' {
		return nil, fileErr(dataPath, ErrSize, "shape %v of kind %q, want (N, D, d) of floats", a.shape, a.kind)
	}
	n, dim, d := a.shape[0], a.shape[1], a.shape[2]
	if n == 0 || d == 0 || d > dim {
		return nil, fileErr(dataPath, ErrSize, "shape %v: want N >= 1 bases of D x d with 1 <= d <= D", a.shape)
	}
	if d > MaxNPYSubDim {
		return nil, fileErr(dataPath, ErrUnsupported, "shape %v: bases of d = %d columns, at most %d", a.shape, d, MaxNPYSubDim)
	}
	if err := checkLimit(dataPath, fmt.Sprintf("npy shape %v", a.shape), imageset.LimitValues, imageset.CountValues(int64(n), int64(dim)*int64(d)), opt.Limits.WithDefaults().TotalValues); err != nil {
		return nil, err
	}
	var raw []int64
	if l != nil {
		if len(l.shape) != 1 && !(len(l.shape) == 2 && l.shape[1] == 1) {
			return nil, fileErr(labelsPath, ErrSize, "shape %v, want (N,)", l.shape)
		}
		if l.len() != n {
			return nil, fileErr(labelsPath, ErrSize, "%d labels, %s has %d bases", l.len(), dataPath, n)
		}
		raw = make([]int64, n)
		for i := range raw {
			if l.kind != 'f' { // checked as an integer: 2^53+1 is no float64
				v, err := intLabel(l.bits(i), l.kind == 'i')
				if err != nil {
					return nil, fileErr(labelsPath, ErrValue, "label %d is %v", i, err)
				}
				raw[i] = v
				continue
			}
			v := l.at(i)
			if math.IsInf(v, 0) || v != math.Trunc(v) {
				return nil, fileErr(labelsPath, ErrValue, "label %d is %g, want an integer", i, v)
			}
			if math.Abs(v) > maxLabel {
				return nil, fileErr(labelsPath, ErrValue, "label %d is %s", i, labelRange(v))
			}
			raw[i] = int64(v)
		}
	}
	tol := opt.Tol
	if tol == 0 {
		tol = DefaultOrthoTol
	}
	flat := make([]float64, n*dim*d)
	for i := 0; i < n; i++ {
		for r := 0; r < dim; r++ {
			for c := 0; c < d; c++ {
				k := (i*dim+r)*d + c
				if a.fortran {
					k = i + n*(r+dim*c)
				}
				v := a.at(k)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fileErr(dataPath, ErrValue, "basis %d, element (%d, %d) is %g", i, r, c, v)
				}
				flat[(i*dim+r)*d+c] = v
			}
		}
	}
	bases := rows(flat, n, dim*d)
	m := linalg.NewDense(dim, d)
	o := linalg.NewOrthonormalizer(dim, d)
	for i, b := range bases {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", dataPath, err)
		}
		for r := 0; r < dim; r++ {
			copy(m.Row(r), b[r*d:(r+1)*d])
		}
		if e := linalg.OrthonormalityError(m); e <= tol {
			continue
		} else if !opt.Reorthonormalize {
			return nil, fileErr(dataPath, ErrValue, "basis %d is not orthonormal: max |BᵀB − I| = %.3g > %.3g (re-orthonormalise it, or use the re-orthonormalisation option)", i, e, tol)
		}
		if err := o.Orthonormalize(m); err != nil {
			return nil, fileErr(dataPath, ErrValue, "basis %d: %v", i, err)
		}
		for r := 0; r < dim; r++ {
			copy(b[r*d:(r+1)*d], m.Row(r))
		}
	}
	ds := &Dataset{
		Source: dataPath,
		Dim:    dim,
		Bases:  bases,
		SubDim: d,
	}
	if raw != nil {
		ds.Labels, ds.Classes = classesFromInts(raw)
	}
	return ds, nil
}
