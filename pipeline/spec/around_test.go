package spec

import "testing"

// Around shows the elements next to an index, clipped to the buffer,
// judged as Check judges them.
func TestAround(t *testing.T) {
	e := Expect{Param: "out", Elem: "u32", Count: 4, Values: []uint64{1, 2, 3, 4}, IgnoreIndices: map[int]bool{3: true}}
	got := []byte{1, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 0, 7, 0, 0, 0}
	els := e.Around(got, 2, 1)
	want := []Element{{Index: 1, Got: "2", Want: "2", Match: true}, {Index: 2, Got: "9", Want: "3"}, {Index: 3, Got: "7", Want: "4", Ignored: true}}
	if len(els) != len(want) {
		t.Fatalf("got %+v", els)
	}
	for i := range want {
		if els[i] != want[i] {
			t.Errorf("element %d: %+v, want %+v", i, els[i], want[i])
		}
	}
	if e.Around(got[:8], 2, 1) != nil {
		t.Error("a short buffer gave elements")
	}
}
