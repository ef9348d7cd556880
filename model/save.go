package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/grlgq/grlgq/internal/safefile"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// The binary format, version 3 (written only when a version 2 file cannot
// hold the model: Distance or Precision not the default, or metadata;
// else version 2, byte for byte as before). All integers little-endian; floats are
// IEEE-754 binary64 bit patterns, so a model round-trips bit for bit.
//
//	header (headerSize bytes):
//	  [8]byte  magic "GRLGQMDL"
//	  uint32   version (2 or 3; Load also reads 1)
//	  uint32   D
//	  uint32   d
//	  uint32   p (prototypes)
//	  uint32   C (classes)
//	  uint32   flags: 1 = class names present, 2 = per-class prototype counts present,
//	           4 = metadata present (version 3 only)
//	  uint64   epochs trained
//	  uint64   payload length in bytes (everything between header and checksum)
//	payload:
//	  config   (configSize bytes, see putConfig; version 1: configSizeV1
//	           bytes, without the image size, which loads as 0x0; version 3:
//	           configSizeV3 bytes, + u8 Distance, u8 Precision, 6 zero bytes)
//	  p        uint32 labels
//	  C        uint32 prototype counts (flag 2)
//	  C        names, each uint32 length + UTF-8 bytes (flag 1)
//	  metadata (flag 4): uint32 count n (1..MaxMetadataEntries), then n
//	           pairs, each uint32 key length + key + uint32 value length +
//	           value (UTF-8; keys sorted and unique; at most
//	           MaxMetadataKey and MaxMetadataValue bytes, the block at most
//	           MaxMetadataBytes)
//	  d or p*d float64 relevances (p*d for RelevanceLocal)
//	  p * D * d float64 prototypes, each row-major (pixel by pixel); float32
//	           (IEEE-754 binary32, 4 bytes each) when Precision is Float32
//	           (version 3), the values such a model holds exactly
//	checksum: uint32 CRC-32C (Castagnoli) of header and payload
const (
	magic         = "GRLGQMDL"
	formatVersion = 3 // the newest version this package reads and writes
	headerSize    = 8 + 4*6 + 8 + 8
	configSizeV1  = 4*5 + 4 + 8*9 + 8
	configSize    = configSizeV1 + 4*2 // version 2: + image width, height
	configSizeV3  = configSize + 8     // version 3: + distance, precision, 6 reserved zero bytes
	// MaxFileBytes bounds the payload Load accepts (1 GiB).
	MaxFileBytes = 1 << 30
	maxNameLen   = 1 << 12
	flagNames    = 1
	flagCounts   = 2
	flagMeta     = 4
	// orthoTol is the loss of orthonormality Load accepts in a prototype.
	orthoTol = 1e-8
	// orthoTol32 is orthoTol for Float32 prototypes: the trainer keeps
	// them within 1e-6 (maxDrift32), rounding to float32 moves about 6e-8.
	orthoTol32 = 1e-5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes m to w in the versioned binary format (see MarshalBinary).
func (m *Model) Save(w io.Writer) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	return nil
}

// MarshalBinary encodes m in the versioned binary format: magic, version,
// shapes, config, labels, class names, relevances, prototypes, CRC-32C.
// Equal models encode to equal bytes (the TrainConfig's Workers, MinDelta,
// AverageLast and OnEpoch are not stored). The zero Model, which Load
// could not read back, is an error (ErrConfig), and so for Save and
// SaveFile.
func (m *Model) MarshalBinary() ([]byte, error) {
	if len(m.protos) == 0 {
		return nil, errZeroModel("save")
	}
	p, classes := len(m.protos), m.classes
	var flags uint32
	if len(m.cfg.ClassNames) > 0 {
		flags |= flagNames
	}
	if len(m.cfg.PrototypesOfClass) > 0 {
		flags |= flagCounts
	}
	if len(m.meta) > 0 {
		flags |= flagMeta
	}
	version, cfgSize := m.fileVersion()
	size := cfgSize + 4*p + 8*len(m.lambda) + m.elemBytes()*p*m.dim*m.d + metaSize(m.meta)
	if flags&flagCounts != 0 {
		size += 4 * classes
	}
	for _, s := range m.cfg.ClassNames {
		if len(s) > maxNameLen {
			return nil, fmt.Errorf("model: save: %w: class name of %d bytes (limit %d)", ErrData, len(s), maxNameLen)
		}
		size += 4 + len(s)
	}
	b := make([]byte, 0, headerSize+size+4)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	for _, v := range []int{m.dim, m.d, p, classes} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = binary.LittleEndian.AppendUint32(b, flags)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.epochs))
	b = binary.LittleEndian.AppendUint64(b, uint64(size))
	b = putConfig(b, &m.cfg, &m.train, &m.pred)
	if version >= 3 {
		b = append(b, byte(m.cfg.Distance), byte(m.cfg.Precision), 0, 0, 0, 0, 0, 0)
	}
	for _, l := range m.labels {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	if flags&flagCounts != 0 {
		for _, n := range m.cfg.PrototypesOfClass {
			b = binary.LittleEndian.AppendUint32(b, uint32(n))
		}
	}
	if flags&flagNames != 0 {
		for _, s := range m.cfg.ClassNames {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
			b = append(b, s...)
		}
	}
	if flags&flagMeta != 0 {
		b = appendMeta(b, m.meta)
	}
	for _, v := range m.lambda {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	for _, w := range m.protos {
		for r := 0; r < w.Rows; r++ {
			for _, v := range w.Row(r) {
				if m.cfg.Precision == Float32 {
					b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
				} else {
					b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
				}
			}
		}
	}
	if len(b) != headerSize+size {
		panic("model: internal error: encoded size mismatch")
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// fileVersion returns the oldest format version that holds m, and the
// size of its config block: 2, unless the model needs version 3's fields
// or its metadata block.
func (m *Model) fileVersion() (uint32, int) {
	if m.cfg.Distance != Geodesic || m.cfg.Precision != Float64 || len(m.meta) > 0 {
		return 3, configSizeV3
	}
	return 2, configSize
}

// elemBytes is the size of a stored prototype entry: 4 for Float32, else 8.
func (m *Model) elemBytes() int {
	if m.cfg.Precision == Float32 {
		return 4
	}
	return 8
}

// storedNone and loadedNone are the file's form of "none" for InitNoise
// and RelevanceFloor: version 2 (and 1) writers stored a negative value,
// -1, for no noise and no floor, and read 0 as the default. A 0 (none) is
// written as -1, so that files stay what they were and older readers read
// them right, and any negative value loads as 0.
func storedNone(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}

func loadedNone(v float64) float64 {
	if v < 0 && !math.IsInf(v, -1) {
		return 0
	}
	return v
}

// putConfig appends the stored fields of c, t and p (configSize bytes).
func putConfig(b []byte, c *Config, t *TrainConfig, p *PredictConfig) []byte {
	le := binary.LittleEndian
	for _, v := range []int{c.SubspaceDim, c.PrototypesPerClass, t.StepEvery, t.Epochs, t.Patience} {
		b = le.AppendUint32(b, uint32(v))
	}
	cw := byte(0)
	if t.ClassWeights {
		cw = 1
	}
	b = append(b, byte(t.Init), byte(c.Relevance), byte(t.Schedule), byte(t.Activation)|cw<<7)
	for _, v := range []float64{storedNone(t.InitNoise), t.Eta, t.Gamma, t.Tau, t.Beta, storedNone(t.RelevanceFloor), t.ValidationFraction, p.Temperature, p.RejectMargin} {
		b = le.AppendUint64(b, math.Float64bits(v))
	}
	b = le.AppendUint64(b, t.Seed)
	b = le.AppendUint32(b, uint32(c.ImageWidth))
	return le.AppendUint32(b, uint32(c.ImageHeight))
}

// getConfig decodes putConfig's bytes (configSize bytes; configSizeV1
// bytes, without the image size, for version 1).
func getConfig(b []byte) (c Config, t TrainConfig, pc PredictConfig) {
	le := binary.LittleEndian
	ints := []*int{&c.SubspaceDim, &c.PrototypesPerClass, &t.StepEvery, &t.Epochs, &t.Patience}
	for i, p := range ints {
		*p = int(le.Uint32(b[4*i:]))
	}
	o := 4 * len(ints)
	t.Init, c.Relevance, t.Schedule = InitKind(b[o]), RelevanceKind(b[o+1]), Schedule(b[o+2])
	t.Activation, t.ClassWeights = Activation(b[o+3]&0x7f), b[o+3]&0x80 != 0
	o += 4
	for _, p := range []*float64{&t.InitNoise, &t.Eta, &t.Gamma, &t.Tau, &t.Beta, &t.RelevanceFloor, &t.ValidationFraction, &pc.Temperature, &pc.RejectMargin} {
		*p = math.Float64frombits(le.Uint64(b[o:]))
		o += 8
	}
	t.InitNoise, t.RelevanceFloor = loadedNone(t.InitNoise), loadedNone(t.RelevanceFloor)
	t.Seed = le.Uint64(b[o:])
	o += 8
	if len(b) >= o+8 {
		// Bounded by MaxDim in validate; uint32 -> int cannot overflow.
		c.ImageWidth, c.ImageHeight = int(le.Uint32(b[o:])), int(le.Uint32(b[o+4:]))
	}
	return c, t, pc
}

// Load reads a model written by Save. It checks the magic, the version and
// the shapes against sane limits and against the declared payload length
// before reading the payload (which is never allocated beyond the bytes
// actually present), then the CRC-32C, then every field (labels in range,
// relevances non-negative summing to 1, prototypes finite and orthonormal,
// every config field within the limits Train accepts).
//
// Load reads exactly the bytes of one model from r, the header, the
// payload length it declares and the checksum, and leaves the rest of r
// unread, so that a stream may hold several models one after the other
// (or a model followed by other data). A reader that ends before the
// checksum is an error wrapping ErrTruncated, which also wraps io.EOF
// when r held no byte at all: the clean end of a stream of models. Where
// the input is one model, LoadFile and UnmarshalBinary refuse bytes after
// the checksum.
//
// Errors wrap ErrFormat, ErrVersion, ErrTruncated, ErrChecksum or
// ErrCorrupt.
func Load(r io.Reader) (*Model, error) {
	var h [headerSize]byte
	n, err := io.ReadFull(r, h[:])
	if n >= len(magic) && string(h[:len(magic)]) != magic || n < len(magic) && n > 0 && string(h[:n]) != magic[:n] {
		return nil, fmt.Errorf("model: load: %w", ErrFormat)
	}
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("model: load: header: %w (0 of %d bytes): %w", ErrTruncated, headerSize, io.EOF)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("model: load: header: %w (%d of %d bytes)", ErrTruncated, n, headerSize)
		}
		return nil, fmt.Errorf("model: load: %w", err)
	}
	le := binary.LittleEndian
	version := le.Uint32(h[8:])
	if version < 1 || version > formatVersion {
		return nil, fmt.Errorf("model: load: %w %d (this package reads 1 to %d)", ErrVersion, version, formatVersion)
	}
	cfgSize := configSize
	switch version {
	case 1:
		cfgSize = configSizeV1
	case 3:
		cfgSize = configSizeV3
	}
	dim, d, p, classes := int(le.Uint32(h[12:])), int(le.Uint32(h[16:])), int(le.Uint32(h[20:])), int(le.Uint32(h[24:]))
	flags := le.Uint32(h[28:])
	epochs := le.Uint64(h[32:])
	size := le.Uint64(h[40:])
	corrupt := func(format string, a ...any) error {
		return fmt.Errorf("model: load: %w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
	switch {
	case dim < 1 || dim > MaxDim || d < 1 || d > MaxSubDim || d > dim:
		return nil, corrupt("shape D=%d d=%d", dim, d)
	case p < 2 || p > MaxPrototype || classes < 2 || classes > MaxClasses || classes > p:
		return nil, corrupt("%d prototypes of %d classes", p, classes)
	case flags&^(flagNames|flagCounts|flagMeta) != 0 || (flags&flagMeta != 0 && version < 3):
		return nil, corrupt("flags %#x in a version %d file", flags, version)
	case epochs > math.MaxInt32:
		return nil, corrupt("epochs %d", epochs)
	case size > MaxFileBytes:
		return nil, corrupt("payload of %d bytes (limit %d)", size, MaxFileBytes)
	case uint64(p)*uint64(dim)*uint64(kernels.Stride(d))*8 > MaxFileBytes:
		// Decoded prototypes are padded to kernels.Stride(d) columns (up
		// to 8x the file's bytes for d = 1): bound that memory too.
		return nil, corrupt("prototypes of %d x %d x %d need more than %d bytes in memory", p, dim, d, MaxFileBytes)
	}
	// Sizes below are bounded by the limits: no overflow.
	fixed := cfgSize + 4*p + 8*p*dim*d
	if flags&flagCounts != 0 {
		fixed += 4 * classes
	}
	if flags&flagNames != 0 {
		fixed += 4 * classes
	}
	minSize, maxSize := fixed+8*d, fixed+8*p*d
	if version >= 3 {
		// Float32 prototypes (known from the config): 4 bytes each.
		minSize -= 4 * p * dim * d
	}
	if flags&flagNames != 0 {
		maxSize += classes * maxNameLen
	}
	if flags&flagMeta != 0 {
		minSize += 4 + 8
		maxSize += MaxMetadataBytes
	}
	if size < uint64(minSize) || size > uint64(maxSize) {
		return nil, corrupt("payload of %d bytes for D=%d d=%d p=%d C=%d (want %d..%d)", size, dim, d, p, classes, minSize, maxSize)
	}
	// Read what is there, at most size+4 bytes (never a byte of r beyond
	// the checksum): allocation follows the data.
	body, err := io.ReadAll(io.LimitReader(r, int64(size)+4))
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err)
	}
	if uint64(len(body)) < size+4 {
		return nil, fmt.Errorf("model: load: %w: %d of %d bytes after the header", ErrTruncated, len(body), size+4)
	}
	payload := body[:size]
	crc := crc32.Update(crc32.Checksum(h[:], castagnoli), castagnoli, payload)
	if got := le.Uint32(body[size:]); got != crc {
		return nil, fmt.Errorf("model: load: %w (stored %#08x, computed %#08x)", ErrChecksum, got, crc)
	}
	return decodePayload(payload, cfgSize, dim, d, p, classes, flags, int(epochs))
}

// decodePayload parses and validates a checksummed payload whose config
// takes cfgSize bytes.
func decodePayload(b []byte, cfgSize, dim, d, p, classes int, flags uint32, epochs int) (*Model, error) {
	le := binary.LittleEndian
	corrupt := func(format string, a ...any) error {
		return fmt.Errorf("model: load: %w: "+format, append([]any{ErrCorrupt}, a...)...)
	}
	take := func(n int) ([]byte, error) {
		if n > len(b) {
			return nil, corrupt("payload ends early")
		}
		s := b[:n]
		b = b[n:]
		return s, nil
	}
	cb, err := take(cfgSize)
	if err != nil {
		return nil, err
	}
	cfg, tc, pc := getConfig(cb)
	if cfgSize == configSizeV3 {
		x := cb[configSize:]
		if x[2]|x[3]|x[4]|x[5]|x[6]|x[7] != 0 {
			return nil, corrupt("reserved config bytes % x", x[2:])
		}
		cfg.Distance, cfg.Precision = Distance(x[0]), Precision(x[1])
		if cfg.Distance == Geodesic && cfg.Precision == Float64 && flags&flagMeta == 0 {
			// Never written (a version 2 file holds such a model): every
			// model has one encoding.
			return nil, corrupt("version 3 file of a version 2 model")
		}
	}
	m := &Model{cfg: cfg, train: tc, pred: pc, dim: dim, d: d, classes: classes, epochs: epochs}
	lb, err := take(4 * p)
	if err != nil {
		return nil, err
	}
	m.labels = make([]int, p)
	for k := range m.labels {
		m.labels[k] = int(le.Uint32(lb[4*k:]))
	}
	if flags&flagCounts != 0 {
		cb, err := take(4 * classes)
		if err != nil {
			return nil, err
		}
		m.cfg.PrototypesOfClass = make([]int, classes)
		for c := range m.cfg.PrototypesOfClass {
			m.cfg.PrototypesOfClass[c] = int(le.Uint32(cb[4*c:]))
		}
	}
	if flags&flagNames != 0 {
		m.cfg.ClassNames = make([]string, classes)
		for c := range m.cfg.ClassNames {
			nb, err := take(4)
			if err != nil {
				return nil, err
			}
			n := le.Uint32(nb)
			if n > maxNameLen {
				return nil, corrupt("class name of %d bytes", n)
			}
			sb, err := take(int(n))
			if err != nil {
				return nil, err
			}
			m.cfg.ClassNames[c] = string(sb)
		}
	}
	if flags&flagMeta != 0 {
		meta, n, err := readMeta(b)
		if err != nil {
			return nil, corrupt("%v", err)
		}
		m.meta = meta
		b = b[n:]
	}
	nl := d
	if m.cfg.Relevance == RelevanceLocal {
		nl = p * d
	}
	eb := m.elemBytes()
	if len(b) != 8*nl+eb*p*dim*d {
		return nil, corrupt("%d bytes left for %d relevances and %d prototypes of %d x %d", len(b), nl, p, dim, d)
	}
	m.lambda = make([]float64, nl)
	for i := range m.lambda {
		m.lambda[i] = math.Float64frombits(le.Uint64(b[8*i:]))
	}
	b = b[8*nl:]
	m.protos = make([]*linalg.Dense, p)
	for k := range m.protos {
		w := linalg.NewDense(dim, d)
		for r := 0; r < dim; r++ {
			row := w.Row(r)
			for c := range row {
				if eb == 4 {
					row[c] = float64(math.Float32frombits(le.Uint32(b)))
				} else {
					row[c] = math.Float64frombits(le.Uint64(b))
				}
				b = b[eb:]
			}
		}
		m.protos[k] = w
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("model: load: %w: %v", ErrCorrupt, err)
	}
	return m, nil
}

// validate checks the invariants of a decoded model (binary or JSON).
func (m *Model) validate() error {
	c, tc := m.cfg, m.train
	if err := c.validate(); err != nil {
		return err
	}
	if err := tc.validate(); err != nil {
		return err
	}
	if err := m.pred.validate(); err != nil {
		return err
	}
	if c.SubspaceDim != m.d {
		return fmt.Errorf("config SubspaceDim %d for prototypes of %d columns", c.SubspaceDim, m.d)
	}
	if c.ImageWidth != 0 && int64(c.ImageWidth)*int64(c.ImageHeight) != int64(m.dim) {
		return fmt.Errorf("image size %s (height x width) for D=%d", formatSize(c.ImageWidth, c.ImageHeight), m.dim)
	}
	if m.dim < 1 || m.dim > MaxDim || m.d < 1 || m.d > MaxSubDim || m.d > m.dim {
		return fmt.Errorf("shape D=%d d=%d", m.dim, m.d)
	}
	p := len(m.protos)
	if p < 2 || p > MaxPrototype || m.classes < 2 || m.classes > p || len(m.labels) != p {
		return fmt.Errorf("%d prototypes (%d labels) of %d classes", p, len(m.labels), m.classes)
	}
	if m.epochs < 0 {
		return fmt.Errorf("epochs %d", m.epochs)
	}
	counts := make([]int, m.classes)
	for k, l := range m.labels {
		if l < 0 || l >= m.classes {
			return fmt.Errorf("prototype %d has label %d of %d classes", k, l, m.classes)
		}
		if k > 0 && l < m.labels[k-1] {
			return fmt.Errorf("prototype labels not in class order at %d", k)
		}
		counts[l]++
	}
	for cl, n := range counts {
		if n == 0 {
			return fmt.Errorf("class %d has no prototype", cl)
		}
		if c.PrototypesOfClass != nil {
			if len(c.PrototypesOfClass) != m.classes || c.PrototypesOfClass[cl] != n {
				return fmt.Errorf("prototype counts do not match the labels")
			}
		} else if n != c.PrototypesPerClass {
			return fmt.Errorf("class %d has %d prototypes, config says %d", cl, n, c.PrototypesPerClass)
		}
	}
	if c.ClassNames != nil && len(c.ClassNames) != m.classes {
		return fmt.Errorf("%d class names for %d classes", len(c.ClassNames), m.classes)
	}
	nl := m.d
	if c.Relevance == RelevanceLocal {
		nl = p * m.d
	}
	if len(m.lambda) != nl {
		return fmt.Errorf("%d relevances, want %d", len(m.lambda), nl)
	}
	for off := 0; off < nl; off += m.d {
		var sum float64
		for _, v := range m.lambda[off : off+m.d] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("relevance %v", v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("relevances sum to %v", sum)
		}
	}
	for k, w := range m.protos {
		if w == nil || w.Rows != m.dim || w.Cols != m.d {
			return fmt.Errorf("prototype %d has the wrong shape", k)
		}
		if err := w.Validate(); err != nil {
			return fmt.Errorf("prototype %d: %v", k, err)
		}
		tol := orthoTol
		if c.Precision == Float32 {
			tol = orthoTol32
		}
		if e := linalg.OrthonormalityError(w); !(e <= tol) {
			return fmt.Errorf("prototype %d is not orthonormal (max |WᵀW − I| = %.3g)", k, e)
		}
	}
	m.train.Workers = 0
	return nil
}

// SaveFile writes m to path atomically with package internal/safefile:
// to a temporary file in the same directory, synced, closed and renamed
// over path, then the directory is synced. A crash leaves either the old
// file or the new one. It refuses to replace what is not a regular file
// (a folder, a FIFO, a device), a symbolic link, a file with other hard
// links and a read-only file. A replaced file keeps its permissions; a new
// one gets 0644 less the umask.
func (m *Model) SaveFile(path string) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	if err := safefile.WriteFile(path, b); err != nil {
		return fmt.Errorf("model: save file: %w", err)
	}
	return nil
}

// LoadFile reads a model saved by SaveFile: the file must hold one model
// and nothing after its checksum (ErrCorrupt). It refuses, without
// blocking, a path that is not a regular file (a FIFO, a device, a
// folder).
func LoadFile(path string) (*Model, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: load file: %w", err)
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, err
	}
	// Counted up to 1 MiB: enough to say how much, never a large read.
	if n, err := io.Copy(io.Discard, io.LimitReader(f, 1<<20)); n > 0 {
		return nil, trailingError(n, n == 1<<20)
	} else if err != nil {
		return nil, fmt.Errorf("model: load file: %w", err)
	}
	return m, nil
}

// trailingError is the error of LoadFile and UnmarshalBinary for an input
// with n bytes (orMore: at least n) after the model's checksum.
func trailingError(n int64, orMore bool) error {
	more := ""
	if orMore {
		more = " or more"
	}
	return fmt.Errorf("model: load: %w: %d%s bytes after the checksum", ErrCorrupt, n, more)
}

// UnmarshalBinary decodes a model encoded by MarshalBinary into m, which
// must be a new zero Model (as encoding.BinaryUnmarshaler and a decoder
// that allocates the Model give it): a Model that holds a model, from
// Init, Train, Continue, Load or an earlier decode, is left as it is and
// the call is an error wrapping ErrConfig, since its predictions may
// already be running (use Load for a new Model). Trailing bytes are an
// error.
func (m *Model) UnmarshalBinary(b []byte) error {
	r := &sliceReader{b: b}
	got, err := Load(r)
	if err != nil {
		return err
	}
	if len(r.b) != 0 {
		return trailingError(int64(len(r.b)), false)
	}
	return m.adopt(got, "load")
}

// adopt moves src's content into m, which must be a zero Model: checked
// under m.mu, which a first prediction holds while it builds m's
// predictor, so that a decode and a prediction never interleave.
func (m *Model) adopt(src *Model, what string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.protos != nil || m.srv.Load() != nil {
		return fmt.Errorf("model: %s: %w: decoding into a Model that is not a new zero Model (use Load, or decode into new(model.Model))", what, ErrConfig)
	}
	m.cfg, m.train, m.pred, m.dim, m.d, m.classes = src.cfg, src.train, src.pred, src.dim, src.d, src.classes
	m.labels, m.protos, m.lambda, m.epochs, m.meta = src.labels, src.protos, src.lambda, src.epochs, src.meta
	return nil
}

type sliceReader struct{ b []byte }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
