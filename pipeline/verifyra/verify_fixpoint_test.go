package verifyra_test

import (
	"fmt"
	"testing"

	"orilab/pipeline"
)

// rdFixpointPTX is fuzz seed 26121665 reduced (orilab reduce, -O2) from
// 299 to 17 instructions while the verifier's old join kept the
// reaching-definitions iteration cycling: "verify-ra fuzz: the
// reaching-definitions dataflow did not reach a fixed point after 120
// sweeps over 7 blocks" at -O2 and -O3 (here with its unused parameters
// and declarations removed). %rd13 is never defined and
// the ld.v4 results are defined on one path only, so values are
// undefined on some paths into the joins after the brx.idx, which the
// old join stored in a register on one visit and only as "undefined" on
// the next. ptxas 13.0 accepts the kernel.
const rdFixpointPTX = `.version 8.0
.target sm_86
.address_size 64

.visible .entry fuzz(
	.param .u64 out
)
{
	.reg .b32 %r<72>;
	.reg .b64 %rd<31>;
	.reg .pred %p<34>;
	.local .align 16 .b8 loc[64];
	.shared .align 4 .b32 shc[8];
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r7, 1, %r4, 0;
	mul.lo.u32 %r6, %r4, 1;
	mad.lo.u32 %r20, %r6, 0xFFFF, 0x11;
	st.local.u32 [loc+60], %r20;
	setp.eq.u32 %p4, %r7, 0;
	@%p4 st.shared.u32 [shc+0], 0;
	rem.u32 %r33, 0, 5;
	$L_fuzz_7: .branchtargets $L_fuzz_9, $L_fuzz_10, $L_fuzz_11, $L_fuzz_12, $L_fuzz_13;
	brx.idx %r33, $L_fuzz_7;
$L_fuzz_9:
$L_fuzz_10:
	cvta.local.u64 %rd24, 0;
	add.s64 %rd25, %rd24, 1;
	ld.u32 %r18, [%rd25];
$L_fuzz_11:
$L_fuzz_12:
	bra $L_fuzz_8;
$L_fuzz_13:
	setp.ne.u32 %p13, %r20, 0;
	@!%p13 bra $L_fuzz_18;
	ld.v4.u32 {%r38, %r39, %r40, %r41}, [%rd13+48];
$L_fuzz_18:
$L_fuzz_8:
	ret;
}
`

// TestVerifyFixpointReached compiles the reduced kernel at every -O
// level with the verifiers on: the post-RA verifier must reach its fixed
// point and accept the allocation.
func TestVerifyFixpointReached(t *testing.T) {
	for level := 0; level <= 3; level++ {
		t.Run(fmt.Sprintf("O%d", level), func(t *testing.T) {
			_, err := pipeline.CompileWith("fuzz26121665.reduced.ptx", []byte(rdFixpointPTX), pipeline.Options{},
				pipeline.PhaseOptions{OptLevel: level, Verify: true, NoSnapshots: true})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
