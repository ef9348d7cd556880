package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/internal/safefile"
)

// TestLoadConfigLimits: a config field outside the range Train accepts is
// refused at load even under a valid checksum, naming the field.
func TestLoadConfigLimits(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	cfg := headerSize // the config starts the payload
	f64 := func(off int, v float64) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(b[cfg+off:], math.Float64bits(v))
		return reseal(b)
	}
	u32 := func(off int, v uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[cfg+off:], v)
		return reseal(b)
	}
	cases := []struct {
		field string
		data  []byte
	}{
		{"StepEvery", u32(8, 1<<30)},
		{"StepEvery", u32(8, 0)},
		{"Epochs", u32(12, 1<<30)},
		{"Patience", u32(16, 1<<30)},
		{"InitNoise", f64(24, 1e308)},
		{"Eta", f64(32, 1e308)},
		{"Eta", f64(32, 0)},
		{"Gamma", f64(40, 1e308)},
		{"Tau", f64(48, 1e308)},
		{"Beta", f64(56, 1e308)},
		{"RelevanceFloor", f64(64, math.Inf(-1))},
		{"ValidationFraction", f64(72, 1e308)},
		{"Temperature", f64(80, 1e308)},
		{"Temperature", f64(80, math.NaN())},
		{"RejectMargin", f64(88, 1e308)},
	}
	for _, c := range cases {
		m, err := Load(bytes.NewReader(c.data))
		if m != nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s out of range: model %v, error %v; want ErrCorrupt naming the field", c.field, m != nil, err)
		}
	}
	if _, err := Load(bytes.NewReader(good)); err != nil {
		t.Fatalf("the unmodified model: %v", err)
	}
}

// TestLoadTrailingBytes: Load, LoadFile and UnmarshalBinary refuse bytes
// after the checksum.
func TestLoadTrailingBytes(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	for _, extra := range [][]byte{{0}, []byte("trailing garbage\n"), good} {
		b := append(append([]byte(nil), good...), extra...)
		if _, err := Load(bytes.NewReader(b)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "after the checksum") {
			t.Errorf("Load with %d trailing bytes: %v", len(extra), err)
		}
		if err := new(Model).UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("UnmarshalBinary with %d trailing bytes: %v", len(extra), err)
		}
		p := filepath.Join(t.TempDir(), "m.grlgq")
		os.WriteFile(p, b, 0o644)
		if _, err := LoadFile(p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("LoadFile with %d trailing bytes: %v", len(extra), err)
		}
	}
}

// TestSaveFileRefuses: SaveFile goes through safefile: it never replaces a
// device, a symbolic link or a read-only file, and LoadFile refuses a
// non-regular file.
func TestSaveFileRefuses(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	ro := filepath.Join(dir, "ro")
	os.WriteFile(ro, []byte("keep"), 0o444)
	for path, want := range map[string]error{link: safefile.ErrSymlink, ro: safefile.ErrReadOnly, dir: safefile.ErrNotRegular} {
		if err := m.SaveFile(path); !errors.Is(err, want) {
			t.Errorf("SaveFile(%s) = %v, want %v", path, err, want)
		}
	}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		if err := m.SaveFile(os.DevNull); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("SaveFile(%s) = %v", os.DevNull, err)
		}
		if _, err := LoadFile(os.DevNull); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("LoadFile(%s) = %v", os.DevNull, err)
		}
	}
	for _, p := range []string{target, ro} {
		if b, _ := os.ReadFile(p); string(b) != "keep" {
			t.Errorf("%s changed: %q", p, b)
		}
	}
	if _, err := LoadFile(dir); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("LoadFile(folder) = %v", err)
	}
}
