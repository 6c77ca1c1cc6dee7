package par

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestDoRunsEveryIndex: every index runs once, whatever jobs is.
func TestDoRunsEveryIndex(t *testing.T) {
	for _, jobs := range []int{0, 1, 2, 7} {
		var count [50]atomic.Int32
		if err := Do(len(count), jobs, func(i int) error { count[i].Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		for i := range count {
			if c := count[i].Load(); c != 1 {
				t.Errorf("jobs %d: index %d ran %d times", jobs, i, c)
			}
		}
	}
}

// TestDoFirstFailure: the failure reported is the lowest index's, an
// error or a panic, as in a loop; a higher index's panic is dropped when
// a lower index returned an error first.
func TestDoFirstFailure(t *testing.T) {
	fail := func(i int) error {
		switch i {
		case 3:
			panic("boom at 3")
		case 5, 9:
			return fmt.Errorf("error at %d", i)
		}
		return nil
	}
	for _, jobs := range []int{1, 4} {
		got := func() (msg string) {
			defer func() {
				if p := recover(); p != nil {
					msg = fmt.Sprint("panic: ", p)
				}
			}()
			return fmt.Sprint(Do(12, jobs, fail))
		}()
		if want := "panic: boom at 3"; got != want {
			t.Errorf("jobs %d: %s, want %s", jobs, got, want)
		}
		err := Do(12, jobs, func(i int) error {
			if i == 8 {
				panic("boom at 8")
			}
			return fail(i + 4) // errors at 1 and 5
		})
		if err == nil || err.Error() != "error at 5" || errors.Unwrap(err) != nil {
			t.Errorf("jobs %d: %v, want error at 5", jobs, err)
		}
	}
}
