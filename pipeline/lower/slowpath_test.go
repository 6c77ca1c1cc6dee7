package lower

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ptx"
)

// slowPathModule is four kernels: the first without rsqrt.approx.f64,
// the others with it, so the shared subroutine belongs before the
// second.
const slowPathModule = `.version 7.8
.target sm_80
.address_size 64
.visible .entry k0(.param .u64 io)
{
	.reg .f64 %fd<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd0, [io];
	ld.global.f64 %fd0, [%rd0];
	add.f64 %fd1, %fd0, %fd0;
	st.global.f64 [%rd0+8], %fd1;
	ret;
}
`

// slowPathKernel is a kernel with rsqrt.approx.f64, named kNAME.
const slowPathKernel = `.visible .entry kNAME(.param .u64 io)
{
	.reg .f64 %fd<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd0, [io];
	ld.global.f64 %fd0, [%rd0];
	rsqrt.approx.f64 %fd1, %fd0;
	st.global.f64 [%rd0+8], %fd1;
	ret;
}
`

// TestParallelLoweringPlacesSlowPaths lowers a module whose kernels
// share the out-of-line slow path of rsqrt.approx.f64 one function at a
// time and on four goroutines: the modules must print the same, with
// the subroutine once, before the first kernel that calls it.
func TestParallelLoweringPlacesSlowPaths(t *testing.T) {
	src := slowPathModule
	for i := 1; i <= 3; i++ {
		src += strings.ReplaceAll(slowPathKernel, "NAME", fmt.Sprint(i))
	}
	lowerText := func(jobs int) (string, []string) {
		pm, err := ptx.Parse("slow.ptx", []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		m, err := Lower(pm, Options{OutlineSlowPaths: true, Jobs: jobs})
		if err != nil {
			t.Fatalf("lower (Jobs %d): %v", jobs, err)
		}
		var names []string
		for _, f := range m.Funcs {
			names = append(names, f.Name)
		}
		return m.String(), names
	}
	serial, names := lowerText(1)
	want := "k0 __orilab.drsqrt.slowpath k1 k2 k3"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("serial lowering: functions %s; want %s", got, want)
	}
	for range 3 {
		parallel, pnames := lowerText(4)
		if got := strings.Join(pnames, " "); got != want {
			t.Fatalf("parallel lowering: functions %s; want %s", got, want)
		}
		if parallel != serial {
			t.Fatalf("parallel lowering differs from the serial one:\n%s", firstDiff(serial, parallel))
		}
	}
}
