package engine

import "testing"

// TestTasks: every task runs exactly once, on any number of workers, with
// SetSolo, and after Close Tasks fails.
func TestTasks(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		e := newEngine(t, 20, 2, 3, workers)
		for _, solo := range []bool{false, true} {
			e.SetSolo(solo)
			for _, n := range []int{0, 1, 2, 3, 7} {
				runs := make([]int, n)
				task := func(i int) { runs[i]++ }
				for rep := 0; rep < 50; rep++ {
					if err := e.Tasks(n, task); err != nil {
						t.Fatal(err)
					}
				}
				for i, r := range runs {
					if r != 50 {
						t.Fatalf("workers %d, solo %v, n %d: task %d ran %d times in 50 calls", workers, solo, n, i, r)
					}
				}
			}
		}
		e.Close()
		if err := e.Tasks(1, func(int) {}); err != ErrClosed {
			t.Fatalf("Tasks after Close: %v", err)
		}
	}
}
