package engine

import (
	"errors"
	"fmt"
	"testing"
)

// TestTasks: every task runs exactly once, on any number of workers, with
// SetSolo, and after Close Tasks fails.
func TestTasks(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		e := newEngine(t, 20, 2, 3, workers)
		for _, solo := range []bool{false, true} {
			e.SetSolo(solo)
			for _, n := range []int{0, 1, 2, 3, 7} {
				checkEachOnce(t, fmt.Sprintf("workers %d, solo %v, n %d", workers, solo, n), n, func(task func(int)) error { return e.Tasks(n, task) })
			}
		}
		e.Close()
		if err := e.Tasks(1, func(int) {}); err != ErrClosed {
			t.Fatalf("Tasks after Close: %v", err)
		}
	}
}

// checkEachOnce makes 50 calls of run, each with a task that counts its
// runs, and fails unless each of the n tasks ran once a call.
func checkEachOnce(t *testing.T, name string, n int, run func(task func(i int)) error) {
	t.Helper()
	runs := make([]int, n)
	task := func(i int) { runs[i]++ }
	for rep := 0; rep < 50; rep++ {
		if err := run(task); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range runs {
		if r != 50 {
			t.Fatalf("%s: task %d ran %d times in 50 calls", name, i, r)
		}
	}
}

// TestTasksFor: every task runs exactly once whatever the owners of its
// prototypes (all on one shard, spread, repeated), split or solo, without
// allocating; each shard's chunks are exactly the tasks placed on it; after
// Close TasksFor fails.
func TestTasksFor(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		const p = 12
		e := newEngine(t, 20, 2, p, workers)
		lists := [][]int{nil, {0}, {p - 1}, {0, p - 1}, {p - 1, 0}, {3, 4}, {5, 5}, {0, 4, 8, 11}, {11, 10, 9, 8, 7, 6, 5}}
		for _, split := range []bool{true, false} {
			e.race.solo = !split
			for _, ks := range lists {
				checkEachOnce(t, fmt.Sprintf("workers %d, split %v, ks %v", workers, split, ks), len(ks), func(task func(int)) error { return e.TasksFor(ks, task) })
				task := func(int) {}
				if a := testing.AllocsPerRun(20, func() { e.TasksFor(ks, task) }); a != 0 {
					t.Fatalf("workers %d, split %v, ks %v: %v allocations a call", workers, split, ks, a)
				}
				// The placement: shard w's chunks are the tasks whose
				// prototype it holds, each once.
				at := make([]int32, len(ks))
				for i, k := range ks {
					at[i] = e.owner[k]
				}
				e.job = job{kind: jobTasks, n: len(ks), at: at}
				seen := make([]bool, len(ks))
				for w := range e.shards {
					for c := 0; c < e.chunks(w); c++ {
						i := nthOf(at, w, c)
						if seen[i] || int(at[i]) != w {
							t.Fatalf("workers %d, ks %v: shard %d's chunk %d is task %d (owner %d, seen %v)", workers, ks, w, c, i, at[i], seen[i])
						}
						seen[i] = true
					}
				}
				e.job = job{}
				for i, s := range seen {
					if !s {
						t.Fatalf("workers %d, ks %v: task %d is no shard's chunk", workers, ks, i)
					}
				}
			}
		}
		for _, bad := range [][]int{{-1}, {p}, {0, p + 3}} {
			ran := false
			if err := e.TasksFor(bad, func(int) { ran = true }); !errors.Is(err, ErrShape) || ran {
				t.Fatalf("TasksFor(%v): %v (a task ran: %v), want ErrShape and none", bad, err, ran)
			}
		}
		e.Close()
		if err := e.TasksFor([]int{0}, func(int) {}); err != ErrClosed {
			t.Fatalf("TasksFor after Close: %v", err)
		}
	}
}
