package abdiff

import (
	"context"
	"errors"
	"strings"
	"testing"

	"orilab/pipeline"
)

// twoLoops has a counted loop the unroller unrolls fully at -O3.
const twoLoops = `.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 0;
	mov.u32 %r2, 0;
$L:
	add.s32 %r2, %r2, %r1;
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 4;
	@%p1 bra $L;
	st.global.u32 [%rd2], %r2;
	ret;
}
`

func snaps(t *testing.T, knobs ...string) []*pipeline.Snapshot {
	t.Helper()
	r := pipeline.Request{OptLevel: 3}
	r = r.WithKnobs(knobs...)
	sess, err := r.StartFile("k.ptx", []byte(twoLoops), pipeline.SessionControl{Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RunAll(); err != nil {
		t.Fatal(err)
	}
	return sess.Snapshots
}

// The first row where A and B part is the unroller (A unrolls, B is
// told not to), its IR differs, and the comparison of a compilation with
// itself has no rows.
func TestCompare(t *testing.T) {
	a, b := snaps(t), snaps(t, "LoopUnroll=false")
	res := Compare(a, b, "k")
	if res.First < 0 || len(res.Rows) == 0 {
		t.Fatalf("no difference found: %+v", res)
	}
	first := res.Rows[res.First]
	if first.Name != "OriLoopUnrolling" || first.StatusA != "changed" || first.StatusB != "unchanged" || !first.Grew || first.Lines == 0 {
		t.Errorf("first difference %+v", first)
	}
	if res.Rows[0].Index > first.Index {
		t.Errorf("rows out of order: %+v", res.Rows)
	}
	if res.FinalLines == 0 || res.FinalA == res.FinalB || !strings.Contains(res.FinalA, ".entry k") {
		t.Errorf("final: %d lines, A %q", res.FinalLines, res.FinalA)
	}
	if same := Compare(a, a, ""); len(same.Rows) != 0 || same.First != -1 || same.FinalLines != 0 {
		t.Errorf("A against itself: %+v", same.Rows)
	}
	if _, ok := FuncText(a[0].Module, "nosuch"); ok {
		t.Error("FuncText found a function that does not exist")
	}
}

// CompareContext stops between phases once its context is cancelled and
// returns the context's error without a partial result.
func TestCompareContextCancel(t *testing.T) {
	a, b := snaps(t), snaps(t, "LoopUnroll=false")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	res, err := CompareContext(ctx, a, b, "", func(int) {
		calls++
		if calls == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || calls != 2 || len(res.Rows) != 0 {
		t.Errorf("err %v after %d phases, %d rows; want context.Canceled after 2, no rows", err, calls, len(res.Rows))
	}
	full, err := CompareContext(context.Background(), a, b, "", nil)
	if err != nil || len(full.Rows) != len(Compare(a, b, "").Rows) {
		t.Errorf("uncancelled: err %v, %d rows", err, len(full.Rows))
	}
}
