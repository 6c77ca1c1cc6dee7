package pipeline_test

import (
	"fmt"
	"testing"

	"orilab/pipeline"
)

// mmaSlicePTX is fuzz seed 26191424 reduced: words 1 and 2 of an IMMA
// result, copied into the A pair of an HMMA. Copy propagation replaced
// the pair by the slice %r[1].64 of the 4-word result, which no aligned
// register tuple can hold, and the register allocator stopped with "is a
// misaligned slice" at -O1 and above.
const mmaSlicePTX = `
.version 8.0
.target sm_80
.address_size 64

.visible .entry fuzz(
	.param .u64 out,
	.param .u64 alias,
	.param .u64 in_u32,
	.param .u64 in_f32,
	.param .u64 in_f64,
	.param .u64 acc,
	.param .u64 acc64,
	.param .u32 n,
	.param .f32 x
)
{
	.reg .b32 %r<65>;
	.reg .b64 %rd<30>;
	.reg .f32 %f<10>;
	.reg .f64 %fd<2>;
	.reg .pred %p<25>;
	.reg .b16 %rs<5>;
	mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r61, %r62, %r63, %r64}, {0, 0}, {0}, {0, 0, 0, 0};
	mov.b32 %r23, %r62;
	mov.b32 %r18, %r63;
	mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f6, %f7, %f8, %f9}, {%r23, %r18}, {0f00000000}, {0f00000000, 0f00000000, 0f00000000, 0f00000000};
	ret;
}
`

func TestCopyPropKeepsTuplesAligned(t *testing.T) {
	for level := 0; level <= 3; level++ {
		t.Run(fmt.Sprintf("O%d", level), func(t *testing.T) {
			_, err := pipeline.CompileWith("fuzz26191424.reduced.ptx", []byte(mmaSlicePTX), pipeline.Options{},
				pipeline.PhaseOptions{OptLevel: level, Verify: true, NoSnapshots: true})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
