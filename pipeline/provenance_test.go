package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// provKernel writes, per thread, four words: a sum (line 16) copied
// through a mov (line 17), the same sum round-tripped through local
// memory, a selp of constants (line 23) on a setp (line 22), and
// ex2.approx of the sum (line 26, tainted) plus one (line 27). Each word's
// provenance is the line that computed it: 16, 16, 22 and 27 (tainted).
const provKernel = `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<9>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	.local .align 4 .b8 loc[4];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 16;
	add.s64 %rd3, %rd1, %rd2;
	add.u32 %r2, %r1, 7;
	mov.u32 %r3, %r2;
	st.global.u32 [%rd3], %r3;
	st.local.u32 [loc], %r2;
	ld.local.u32 %r4, [loc];
	st.global.u32 [%rd3+4], %r4;
	setp.lt.u32 %p1, %r1, 2;
	selp.u32 %r5, 1, 0, %p1;
	st.global.u32 [%rd3+8], %r5;
	cvt.rn.f32.u32 %f1, %r2;
	ex2.approx.f32 %f2, %f1;
	add.f32 %f3, %f2, 0f3F800000;
	st.global.f32 [%rd3+12], %f3;
	ret;
}
`

func TestProvenanceNamesStatement(t *testing.T) {
	dir := t.TempDir()
	ptxPath := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(ptxPath, []byte(provKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	js := `{"name":"k","ptx":"k.ptx","kernel":"k","launch":{"grid":[1,1,1],"block":[4,1,1]},
		"params":[{"name":"out","kind":"buffer","elem":"u32","count":16,"init":"zero"}]}`
	s, err := spec.Parse("k.json", []byte(js), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []int{0, 3} {
		sess, err := NewSession(ptxPath, []byte(provKernel), Options{}, PhaseOptions{OptLevel: level, NoSnapshots: true})
		if err == nil {
			err = sess.RunTo(len(PhaseTable) - 1)
		}
		if err != nil {
			t.Fatal(err)
		}
		prov := &sim.Provenance{Taint: map[int32]bool{26: true}}
		bufs, _, err := ExecuteBuffers(sess.Module(), s, RunOptions{Provenance: prov})
		if err != nil {
			t.Fatal(err)
		}
		out := bufs[0]
		for th := 0; th < 4; th++ {
			for w, want := range []struct {
				line  int32
				taint bool
			}{{16, false}, {16, false}, {22, false}, {27, true}} {
				line, taint := prov.Origin(&out[4*(4*th+w)])
				if line != want.line || taint != want.taint {
					t.Errorf("-O%d thread %d word %d: provenance line %d taint %v, want line %d taint %v", level, th, w, line, taint, want.line, want.taint)
				}
			}
		}
	}
}
