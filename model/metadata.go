package model

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// Limits of a model's metadata (WithMetadata; Load refuses a file over
// them before allocating for it).
const (
	MaxMetadataEntries = 256     // key/value pairs
	MaxMetadataKey     = 128     // bytes of a key
	MaxMetadataValue   = 4096    // bytes of a value
	MaxMetadataBytes   = 1 << 16 // the whole block as stored
)

// Metadata returns a copy of the model's metadata: free-form provenance
// (the tool that wrote the model, when, from what data and preprocessing;
// see WithMetadata), nil when it has none. It plays no part in training
// or prediction.
func (m *Model) Metadata() map[string]string {
	if len(m.meta) == 0 {
		return nil
	}
	out := make(map[string]string, len(m.meta))
	for _, e := range m.meta {
		out[e.key] = e.value
	}
	return out
}

// WithMetadata returns a copy of m whose metadata is md (replacing any
// the model had; nil or empty removes it). Keys are non-empty UTF-8 of at
// most MaxMetadataKey bytes without control characters, values UTF-8 of
// at most MaxMetadataValue bytes, at most MaxMetadataEntries pairs and
// MaxMetadataBytes in all (errors wrap ErrConfig). A model with metadata
// is saved in format version 3; one without is saved byte for byte as
// before. Train, Continue and Average return models without metadata. The command line records "tool", "created", "data.*" and
// "preprocess.*" keys (docs/model-format.md).
func (m *Model) WithMetadata(md map[string]string) (*Model, error) {
	meta, err := metaOf(md)
	if err != nil {
		return nil, err
	}
	c := m.clone()
	c.meta = meta
	return c, nil
}

// metaEntry is one key/value pair; a model keeps them sorted by key.
type metaEntry struct{ key, value string }

// metaOf checks md and returns its entries sorted by key.
func metaOf(md map[string]string) ([]metaEntry, error) {
	if len(md) == 0 {
		return nil, nil
	}
	if len(md) > MaxMetadataEntries {
		return nil, fmt.Errorf("model: %w: %d metadata entries (limit %d)", ErrConfig, len(md), MaxMetadataEntries)
	}
	out := make([]metaEntry, 0, len(md))
	size := 4
	for _, k := range slices.Sorted(maps.Keys(md)) {
		v := md[k]
		if err := checkMeta(k, v); err != nil {
			return nil, fmt.Errorf("model: %w: %v", ErrConfig, err)
		}
		size += 8 + len(k) + len(v)
		out = append(out, metaEntry{k, v})
	}
	if size > MaxMetadataBytes {
		return nil, fmt.Errorf("model: %w: metadata of %d bytes (limit %d)", ErrConfig, size, MaxMetadataBytes)
	}
	return out, nil
}

// checkMeta checks one key/value pair against the limits.
func checkMeta(k, v string) error {
	switch {
	case k == "" || len(k) > MaxMetadataKey:
		return fmt.Errorf("metadata key of %d bytes (1 to %d)", len(k), MaxMetadataKey)
	case !utf8.ValidString(k) || !utf8.ValidString(v):
		return fmt.Errorf("metadata %q: not UTF-8", k)
	case len(v) > MaxMetadataValue:
		return fmt.Errorf("metadata %q: value of %d bytes (limit %d)", k, len(v), MaxMetadataValue)
	}
	for _, r := range k {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("metadata key %q has a control character", k)
		}
	}
	return nil
}

// metaSize is the stored size of entries (0 for none).
func metaSize(meta []metaEntry) int {
	if len(meta) == 0 {
		return 0
	}
	n := 4
	for _, e := range meta {
		n += 8 + len(e.key) + len(e.value)
	}
	return n
}

// appendMeta appends the metadata block: uint32 count, then per entry
// uint32 key length, key, uint32 value length, value (keys sorted,
// unique).
func appendMeta(b []byte, meta []metaEntry) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(meta)))
	for _, e := range meta {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.key)))
		b = append(b, e.key...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.value)))
		b = append(b, e.value...)
	}
	return b
}

// readMeta decodes a metadata block at the start of b, checking every
// bound before it slices (lengths are checked against the bytes present:
// nothing is allocated beyond them), and returns the entries and the
// bytes it took.
func readMeta(b []byte) ([]metaEntry, int, error) {
	le := binary.LittleEndian
	if len(b) < 4 {
		return nil, 0, fmt.Errorf("metadata block ends early")
	}
	n := le.Uint32(b)
	if n < 1 || n > MaxMetadataEntries {
		return nil, 0, fmt.Errorf("%d metadata entries (1 to %d)", n, MaxMetadataEntries)
	}
	off := 4
	str := func(limit int) (string, error) {
		if len(b)-off < 4 {
			return "", fmt.Errorf("metadata block ends early")
		}
		l := le.Uint32(b[off:])
		if l > uint32(limit) || uint64(l) > uint64(len(b)-off-4) {
			return "", fmt.Errorf("metadata string of %d bytes (limit %d, %d left)", l, limit, len(b)-off-4)
		}
		s := string(b[off+4 : off+4+int(l)])
		off += 4 + int(l)
		return s, nil
	}
	meta := make([]metaEntry, 0, min(int(n), len(b)/8))
	for i := range int(n) {
		k, err := str(MaxMetadataKey)
		if err != nil {
			return nil, 0, err
		}
		v, err := str(MaxMetadataValue)
		if err != nil {
			return nil, 0, err
		}
		if err := checkMeta(k, v); err != nil {
			return nil, 0, err
		}
		if i > 0 && k <= meta[i-1].key {
			return nil, 0, fmt.Errorf("metadata keys not sorted and unique at %q", k)
		}
		meta = append(meta, metaEntry{k, v})
		if off > MaxMetadataBytes {
			return nil, 0, fmt.Errorf("metadata of more than %d bytes", MaxMetadataBytes)
		}
	}
	return meta, off, nil
}
