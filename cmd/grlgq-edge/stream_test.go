package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// streamWait bounds each wait of the streaming tests: an answer held back
// until more input arrives fails the test instead of hanging it.
const streamWait = 5 * time.Second

// chanWriter sends a copy of every write to its channel.
type chanWriter chan []byte

func (w chanWriter) Write(p []byte) (int, error) {
	w <- bytes.Clone(p)
	return len(p), nil
}

// writeAsync writes b to w on another goroutine (an io.Pipe write waits
// for its reader) and reports the error on the returned channel.
func writeAsync(w io.Writer, b []byte) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(b)
		done <- err
	}()
	return done
}

// TestStreamStdin: on a live pipe, the answer for a set is written as soon
// as the set is complete (a binary set's last value, a text set's "---"
// line), before the client sends anything more or closes stdin; the
// answer is the one the set gets alone, and the next set's follows after a
// blank line.
func TestStreamStdin(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	alone, stderr, code := runEdge(t, read("set.bin"), "-model", mp, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name string
		set  []byte
	}{
		{"binary", read("set.bin")},
		{"text", append(read("set.txt"), setSeparator+"\n"...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			outs := make(chan []byte, 16)
			exit := make(chan int, 1)
			var errb bytes.Buffer // read only after exit
			go func() {
				code := run([]string{"-model", mp, "-"}, pr, chanWriter(outs), &errb)
				pr.Close() // a pending write fails instead of blocking
				exit <- code
			}()
			// await collects output until it is want, failing on a timeout.
			await := func(what, want string) {
				t.Helper()
				var got []byte
				timeout := time.After(streamWait)
				for string(got) != want {
					select {
					case b := <-outs:
						got = append(got, b...)
						if len(got) > len(want) {
							t.Fatalf("%s: got\n%s\nwant\n%s", what, got, want)
						}
					case code := <-exit:
						t.Fatalf("%s: exit %d before the answer (%q so far): %s", what, code, got, errb.String())
					case <-timeout:
						t.Fatalf("%s: no answer %v after the set was sent, before more input (%q so far)", what, streamWait, got)
					}
				}
			}
			sent := writeAsync(pw, c.set)
			await("the first set", alone)
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			sent = writeAsync(pw, c.set)
			await("the second set", "\n"+alone)
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			pw.Close()
			select {
			case code := <-exit:
				if code != 0 || errb.Len() > 0 || len(outs) > 0 {
					t.Errorf("exit %d, stderr %q, %d writes left over", code, errb.String(), len(outs))
				}
			case <-time.After(streamWait):
				t.Fatalf("still running %v after stdin was closed", streamWait)
			}
		})
	}
}

// TestReadStdinNoReadAhead: a set is returned as soon as its last byte is
// read, however short it is: the format is told apart without waiting
// for 8 bytes when the first ones are not the magic, and nothing after the
// set is awaited.
func TestReadStdinNoReadAhead(t *testing.T) {
	var bin bytes.Buffer
	bin.WriteString(rawMagic)
	binary.Write(&bin, binary.LittleEndian, []uint32{1, 1})
	binary.Write(&bin, binary.LittleEndian, 0.5)
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"binary", bin.Bytes()},
		{"text", []byte("0.5\n" + setSeparator + "\n")}, // 8 bytes
		{"short text", []byte("1\n" + setSeparator + "\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			type set struct {
				imgs [][]float64
				err  error
			}
			got := make(chan set, 1)
			go func() {
				imgs, err := readStdin(bufio.NewReader(pr), 1)
				got <- set{imgs, err}
			}()
			sent := writeAsync(pw, c.in)
			select {
			case s := <-got:
				if s.err != nil || len(s.imgs) != 1 || len(s.imgs[0]) != 1 {
					t.Errorf("%d images, %v", len(s.imgs), s.err)
				}
			case <-time.After(streamWait):
				pr.Close()
				t.Fatalf("no set %v after its last byte was sent", streamWait)
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStreamStrayBytes: bytes after a binary set that do not start another
// are refused as soon as one differs from the magic, after the set's
// answer, not read to the end of input: a client on a pipe that sends one
// stray byte and waits gets the error, and endless bytes are not read
// forever.
func TestStreamStrayBytes(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	set, err := os.ReadFile(filepath.Join(dir, "set.bin"))
	if err != nil {
		t.Fatal(err)
	}
	alone, stderr, code := runEdge(t, set, "-model", mp, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name  string
		stdin func(t *testing.T) io.Reader
		quote string // the stray bytes as the error quotes them
	}{
		{"a byte on an open pipe", func(t *testing.T) io.Reader {
			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() }) // after the run, which closes pr
			writeAsync(pw, append(bytes.Clone(set), 'x'))
			return pr
		}, `"x"`},
		{"endless zeros", func(*testing.T) io.Reader {
			return &endlessReader{head: set, unit: []byte{0}}
		}, `"\x00"`},
		{"part of the magic, then another byte", func(*testing.T) io.Reader {
			return &endlessReader{head: append(bytes.Clone(set), "GRLG"...), unit: []byte("x")}
		}, `"GRLGx"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdin := c.stdin(t)
			var out, errb bytes.Buffer // read only after exit
			exit := make(chan int, 1)
			go func() {
				code := run([]string{"-model", mp, "-"}, stdin, &out, &errb)
				if pr, ok := stdin.(*io.PipeReader); ok {
					pr.Close() // a pending write fails instead of blocking
				}
				exit <- code
			}()
			select {
			case code := <-exit:
				want := "grlgq-edge: stdin: bytes after the 8 images that do not start another set (" + c.quote + `, not "GRLGQSET")` + "\n"
				if code != 1 || errb.String() != want || out.String() != alone {
					t.Errorf("exit %d, stderr %q, want 1 and %q; output\n%s\nwant\n%s", code, errb.String(), want, out.String(), alone)
				}
			case <-time.After(streamWait):
				t.Fatalf("no error %v after the stray bytes were sent", streamWait)
			}
		})
	}
}
