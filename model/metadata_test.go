package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
)

// metaStart is the offset of the metadata block in the encoding of m.
func metaStart(m *Model) int {
	_, cfg := m.fileVersion()
	at := headerSize + cfg + 4*len(m.protos)
	if len(m.cfg.PrototypesOfClass) > 0 {
		at += 4 * m.classes
	}
	for _, s := range m.cfg.ClassNames {
		at += 4 + len(s)
	}
	return at
}

// TestMetadataRoundTrip: metadata survives the binary format and the JSON
// export, makes the file version 3, and a model without it is written as
// before, byte for byte (version 2).
func TestMetadataRoundTrip(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	plain := modelBytes(t, m)
	md := map[string]string{"tool": "grlgq v1.2.3", "created": "2026-11-26T18:00:00Z", "data.hash": "sha256:00ff", "empty": "", "ünï": "çødé ✓"}
	mm, err := m.WithMetadata(md)
	if err != nil {
		t.Fatal(err)
	}
	if m.Metadata() != nil {
		t.Fatal("WithMetadata changed its receiver")
	}
	if !bytes.Equal(modelBytes(t, m), plain) {
		t.Fatal("the model without metadata encodes differently")
	}
	if v, _ := FileVersion(bytes.NewReader(plain)); v != 2 {
		t.Fatalf("a model without metadata is written as version %d", v)
	}
	b := modelBytes(t, mm)
	if v, _ := FileVersion(bytes.NewReader(b)); v != 3 {
		t.Fatalf("a model with metadata is written as version %d, want 3", v)
	}
	back, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(back.Metadata(), md) || !bytes.Equal(modelBytes(t, back), b) {
		t.Fatalf("metadata %v after the round trip, want %v", back.Metadata(), md)
	}
	sameModel(t, m, back)
	js, err := mm.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON Model
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(fromJSON.Metadata(), md) || !bytes.Equal(modelBytes(t, &fromJSON), b) {
		t.Fatalf("JSON round trip: %v", fromJSON.Metadata())
	}
	// Removing the metadata gives the version 2 bytes back.
	none, err := mm.WithMetadata(nil)
	if err != nil || !bytes.Equal(modelBytes(t, none), plain) {
		t.Fatalf("metadata removed: %v, bytes differ", err)
	}
	// The metadata block starts after the labels.
	if got := binary.LittleEndian.Uint32(b[metaStart(mm):]); got != uint32(len(md)) {
		t.Fatalf("count %d at the block's start", got)
	}
}

// TestMetadataLimits: WithMetadata refuses what a file may not hold.
func TestMetadataLimits(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	big := map[string]string{}
	for i := range MaxMetadataEntries + 1 {
		big[strings.Repeat("k", 1+i%100)+string(rune('a'+i%26))+string(rune('a'+i/26))] = "v"
	}
	huge := map[string]string{}
	for i := range 20 {
		huge[string(rune('a'+i))] = strings.Repeat("v", MaxMetadataValue)
	}
	for name, md := range map[string]map[string]string{
		"empty key":    {"": "x"},
		"long key":     {strings.Repeat("k", MaxMetadataKey+1): "x"},
		"long value":   {"k": strings.Repeat("v", MaxMetadataValue+1)},
		"control":      {"a\nb": "x"},
		"not UTF-8":    {"k": "\xff"},
		"many entries": big,
		"many bytes":   huge,
	} {
		if _, err := m.WithMetadata(md); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// TestMetadataHostile: a metadata block that lies about its counts or
// lengths, is unsorted, or appears in a version 2 file, is refused with
// ErrCorrupt and no allocation beyond the bytes read.
func TestMetadataHostile(t *testing.T) {
	mm, err := trainedModel(t, RelevanceGlobal).WithMetadata(map[string]string{"a": "1", "b": "2"})
	if err != nil {
		t.Fatal(err)
	}
	good := modelBytes(t, mm)
	at := metaStart(mm)
	edit := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return reseal(b)
	}
	le := binary.LittleEndian
	for name, data := range map[string][]byte{
		"count 0":          edit(func(b []byte) { le.PutUint32(b[at:], 0) }),
		"count huge":       edit(func(b []byte) { le.PutUint32(b[at:], 1<<31) }),
		"count over":       edit(func(b []byte) { le.PutUint32(b[at:], 3) }),
		"key length huge":  edit(func(b []byte) { le.PutUint32(b[at+4:], 1<<30) }),
		"key length 0":     edit(func(b []byte) { le.PutUint32(b[at+4:], 0) }),
		"value past block": edit(func(b []byte) { le.PutUint32(b[at+9:], MaxMetadataValue) }),
		"unsorted":         edit(func(b []byte) { b[at+8], b[at+18] = 'b', 'a' }),
		"duplicate":        edit(func(b []byte) { b[at+18] = 'a' }),
		"version 2":        edit(func(b []byte) { le.PutUint32(b[8:], 2) }),
		"unknown flag":     edit(func(b []byte) { le.PutUint32(b[28:], 8|flagMeta) }),
	} {
		if _, err := Load(bytes.NewReader(data)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	// A version 3 file of a default model without metadata stays refused
	// (one encoding per model).
	noMeta := edit(func(b []byte) {})
	if _, err := Load(bytes.NewReader(noMeta)); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	// A declared payload that claims the largest metadata block, cut
	// short: truncated, and the allocation follows the bytes present.
	b := append([]byte(nil), good[:len(good)-100]...)
	le.PutUint64(b[40:], le.Uint64(b[40:])+MaxMetadataBytes-200)
	var before, after runtimeMem
	before.read()
	_, err = Load(bytes.NewReader(b))
	after.read()
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("cut file: %v, want ErrTruncated", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("Load allocated %d bytes for a %d-byte file", grew, len(b))
	}
}
