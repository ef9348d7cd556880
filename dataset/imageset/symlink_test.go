package imageset

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// symlink makes link a symbolic link to target, skipping the test where
// the system has none.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
}

// sameTree fails unless got has want's classes and sets, in the same
// order, with the same files (relative to their roots) and pixels.
func sameTree(t *testing.T, got, want *Tree) {
	t.Helper()
	if strings.Join(got.Classes, " ") != strings.Join(want.Classes, " ") || len(got.Sets) != len(want.Sets) {
		t.Fatalf("classes %v, %d sets; want %v, %d sets", got.Classes, len(got.Sets), want.Classes, len(want.Sets))
	}
	for i, g := range got.Sets {
		w := want.Sets[i]
		if g.Name != w.Name || g.Class != w.Class || len(g.Files) != len(w.Files) {
			t.Fatalf("set %d = %s (class %d) %v, want %s (class %d) %v", i, g.Name, g.Class, g.Files, w.Name, w.Class, w.Files)
		}
		for k := range g.Files {
			gr, _ := filepath.Rel(got.Root, g.Files[k])
			wr, _ := filepath.Rel(want.Root, w.Files[k])
			if gr != wr {
				t.Fatalf("set %s file %d = %s, want %s", g.Name, k, gr, wr)
			}
			for p, v := range g.Images[k] {
				if v != w.Images[k][p] {
					t.Fatalf("set %s image %s differs at pixel %d", g.Name, gr, p)
				}
			}
		}
	}
}

// TestSymlinkedFolders: class and set folders that are symbolic links to
// folders elsewhere load as the copied tree does, in the same order,
// whether the layout is given or told; a class folder made only of linked
// set folders (a split made without copies) is a class like any other.
func TestSymlinkedFolders(t *testing.T) {
	copied := makeTree(t)
	src := makeTree(t) // the same tree, elsewhere: what the links point to
	want, err := Load(context.Background(), copied, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A linked class folder (apple), and a real class folder holding a
	// real set folder (cups10) and a linked one (cups2).
	linked := filepath.Join(t.TempDir(), "linked")
	symlink(t, filepath.Join(src, "apple"), filepath.Join(linked, "apple"))
	if err := os.CopyFS(filepath.Join(linked, "cup", "cups10"), os.DirFS(filepath.Join(src, "cup", "cups10"))); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(src, "cup", "cups2"), filepath.Join(linked, "cup", "cups2"))
	// Only linked set folders, one of them through a relative link (split
	// is beside src).
	split := filepath.Join(filepath.Dir(src), "split")
	for _, s := range []string{"apple/apples10", "apple/apples2", "cup/cups10"} {
		symlink(t, filepath.Join(src, s), filepath.Join(split, s))
	}
	symlink(t, filepath.Join("..", "..", filepath.Base(src), "cup", "cups2"), filepath.Join(split, "cup", "cups2"))
	for _, root := range []string{linked, split} {
		t.Run(filepath.Base(root), func(t *testing.T) {
			for _, l := range []Layout{LayoutAuto, LayoutClasses} {
				got, err := Load(context.Background(), root, Options{Layout: l})
				if err != nil {
					t.Fatalf("layout %v: %v", l, err)
				}
				sameTree(t, got, want)
			}
		})
	}
	// Sets without labels: linked set folders beside a real one (not
	// cups2, whose sub-folder makes LayoutAuto refuse it).
	sets := t.TempDir()
	symlink(t, filepath.Join(src, "cup", "cups10"), filepath.Join(sets, "b"))
	symlink(t, filepath.Join(src, "apple", "apples10"), filepath.Join(sets, "c"))
	if err := os.CopyFS(filepath.Join(sets, "a"), os.DirFS(filepath.Join(src, "apple", "apples2"))); err != nil {
		t.Fatal(err)
	}
	for _, l := range []Layout{LayoutAuto, LayoutSets} {
		got, err := Load(context.Background(), sets, Options{Layout: l})
		if err != nil {
			t.Fatalf("sets, layout %v: %v", l, err)
		}
		if got.Classes != nil || len(got.Sets) != 3 || got.Sets[0].Name != "a" || got.Sets[1].Name != "b" || got.Sets[2].Name != "c" {
			t.Fatalf("sets, layout %v: classes %v, %d sets", l, got.Classes, len(got.Sets))
		}
		if f := got.Sets[1].Files[0]; f != filepath.Join(sets, "b", "a.png") {
			t.Fatalf("file through a link %s, want the path through it", f)
		}
	}
	// The limits hold through links: cups2 has 3 images.
	_, err = Load(context.Background(), split, Options{Limits: Limits{ImagesPerSet: 2}})
	wantLimit(t, err, LimitSetImages, "more than 2 images per set")
	_, err = Load(context.Background(), split, Options{Limits: Limits{TotalValues: 12*(12+ItemCost) - 1}})
	wantLimit(t, err, LimitValues, "12 images of 3x4")
	// A link to a regular file beside the set folders is a file like any
	// other: ignored, or refused with an image name.
	symlink(t, filepath.Join(src, "README.txt"), filepath.Join(split, "cup", "notes"))
	got, err := Load(context.Background(), split, Options{})
	if err != nil {
		t.Fatalf("link to a file beside the sets: %v", err)
	}
	sameTree(t, got, want)
	img := filepath.Join(split, "cup", "x.png")
	symlink(t, filepath.Join(src, "cup", "cups2", "a.png"), img)
	if _, err := Load(context.Background(), split, Options{Layout: LayoutClasses}); !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), img+": image directly in a class folder") {
		t.Fatalf("link to an image in a class folder: %v", err)
	}
}

// oneLine fails unless err is a one-line error naming path and every
// fragment.
func oneLine(t *testing.T, err error, path string, frags ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %s", path)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Fatalf("error of several lines: %q", msg)
	}
	for _, f := range append([]string{path}, frags...) {
		if !strings.Contains(msg, f) {
			t.Fatalf("error %q does not mention %q", msg, f)
		}
	}
}

// TestDanglingSymlinkedFolder: a link in place of a class or set folder
// whose target is missing, or that leads to itself, is a one-line error
// naming it, whatever the layout option; a link back up the tree is read
// once and refused for what it holds.
func TestDanglingSymlinkedFolder(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	for _, c := range []struct {
		name string
		link string // relative to the root of makeTree
		to   string
	}{
		{"set folder", "cup/cups3", gone},
		{"class folder", "pear", gone},
		{"only set folder", "pear/pears1", gone},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := makeTree(t)
			link := filepath.Join(root, filepath.FromSlash(c.link))
			symlink(t, c.to, link)
			for _, l := range []Layout{LayoutAuto, LayoutClasses} {
				_, err := Load(context.Background(), root, Options{Layout: l})
				oneLine(t, err, link, "symbolic link to "+gone)
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("layout %v: %v does not match fs.ErrNotExist", l, err)
				}
			}
		})
	}
	t.Run("sets", func(t *testing.T) {
		root := t.TempDir()
		writePNG(t, filepath.Join(root, "a", "x.png"), grayImage(4, 3, 0))
		link := filepath.Join(root, "b")
		symlink(t, gone, link)
		for _, l := range []Layout{LayoutAuto, LayoutSets} {
			_, err := Load(context.Background(), root, Options{Layout: l})
			oneLine(t, err, link, "symbolic link to "+gone)
		}
	})
	t.Run("loop", func(t *testing.T) {
		root := makeTree(t)
		link := filepath.Join(root, "cup", "cups3")
		symlink(t, link, link)
		_, err := Load(context.Background(), root, Options{})
		oneLine(t, err, link, "symbolic link to "+link)
	})
	t.Run("back up", func(t *testing.T) {
		root := makeTree(t)
		link := filepath.Join(root, "cup", "cups3")
		symlink(t, root, link)
		err := within(t, 5*time.Second, func() error { _, err := Load(context.Background(), root, Options{}); return err })
		oneLine(t, err, link, "set folder without PNG or JPEG images")
	})
}

// TestSymlinkToSpecialFolder: a link to a FIFO or a device in place of a
// class or set folder is refused, without blocking, as ErrNotRegular.
func TestSymlinkToSpecialFolder(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	haveFIFO := mkfifo(fifo) == nil
	for _, c := range []struct {
		name, link, to, kind string
	}{
		{"FIFO as a set folder", "cup/cups3", fifo, "a FIFO (named pipe)"},
		{"FIFO as a class folder", "pear", fifo, "a FIFO (named pipe)"},
		{"device as a set folder", "cup/cups3", os.DevNull, "a character device"},
		{"device as a class folder", "pear", os.DevNull, "a character device"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.to == fifo && !haveFIFO {
				t.Skip("no FIFOs here")
			}
			if c.to == os.DevNull {
				if st, err := os.Stat(c.to); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
					t.Skipf("no character device %s here", c.to)
				}
			}
			root := makeTree(t)
			link := filepath.Join(root, filepath.FromSlash(c.link))
			symlink(t, c.to, link)
			for _, l := range []Layout{LayoutAuto, LayoutClasses} {
				err := within(t, 5*time.Second, func() error { _, err := Load(context.Background(), root, Options{Layout: l}); return err })
				oneLine(t, err, link, "symbolic link to "+c.to, c.kind, "not a folder")
				if !errors.Is(err, ErrNotRegular) {
					t.Fatalf("layout %v: %v does not match ErrNotRegular", l, err)
				}
			}
		})
	}
}
