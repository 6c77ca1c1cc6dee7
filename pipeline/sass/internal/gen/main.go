// Command gen measures SASS encodings with NVIDIA's own tools and writes
// what it measured as data for package sass's tests:
//
//	go run ./pipeline/sass/internal/gen [-o pipeline/sass/testdata/ptxas]
//
// It needs ptxas and nvdisasm (found as internal/nvtools finds them). For
// each of sm_75, sm_80, sm_86, sm_89 and sm_90 it compiles the probe
// kernels (testdata/kernels/*.ptx, testdata/cuda/*.ptx and the probes
// below) with ptxas -arch=sm_XX, disassembles each cubin with nvdisasm
// -hex, and keeps up to two words per distinct instruction form (the
// mnemonic with its modifiers and the kinds of its operands). Each line
// of OUT/smXX.txt is
//
//	ADDR LO HI TEXT
//
// with the instruction's address in its function, its two 64-bit halves
// and nvdisasm's text, branch labels replaced by addresses. A header line
// names the tools' versions. TestDecodePtxasWords decodes every word with
// orilab's tables and compares the text. With -sr it prints the special
// register names nvdisasm gives every value of S2R's index field (bits
// 72-79), the measurement behind sass's srNumber table.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"orilab/internal/atomicfile"
	"orilab/internal/nvtools"
)

// probes are small kernels for forms the testdata kernels may not reach
// (probe_mma: every mma.sync shape and type issue 23 lowers, sm_80;
// probe_ldsm: ldmatrix and stmatrix in every count and layout, sm_90;
// probe_ldsm80: its ldmatrix for sm_80; probe_fp8: the e4m3/e5m2
// conversions, sm_89; probe_f2f16: cvt between f32 and f16).
var probes = []string{`
.version 7.8
.target sm_75
.address_size 64
.visible .entry probe_alu(.param .u64 out, .param .u32 a, .param .f32 f, .param .f64 d)
{
	.reg .u32 %r<20>; .reg .u64 %rd<8>; .reg .f32 %f<10>; .reg .f64 %fd<6>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [a]; ld.param.f32 %f1, [f]; ld.param.f64 %fd1, [d];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r2, %tid.x;
	min.s32 %r3, %r1, %r2; max.u32 %r4, %r1, %r2; abs.s32 %r5, %r1;
	popc.b32 %r6, %r1; clz.b32 %r7, %r2; brev.b32 %r8, %r1; bfind.u32 %r9, %r2;
	shf.l.wrap.b32 %r10, %r1, %r2, %r3; prmt.b32 %r11, %r1, %r2, 0x3210;
	mul.hi.u32 %r12, %r1, %r2; mad.lo.s32 %r13, %r1, %r2, %r3;
	min.f32 %f2, %f1, 0f3F800000; max.f32 %f3, %f1, %f2; sqrt.approx.f32 %f4, %f1;
	cvt.rni.f32.f32 %f5, %f1; cvt.rzi.s32.f32 %r14, %f1; cvt.rn.f32.u32 %f6, %r2;
	cvt.rn.f64.s32 %fd2, %r1; cvt.rzi.s32.f64 %r15, %fd1; cvt.rn.f32.f64 %f7, %fd1;
	add.f64 %fd3, %fd1, %fd2; mul.f64 %fd4, %fd3, 0d4000000000000000;
	setp.lt.f32 %p1, %f1, %f2; setp.gtu.f64 %p2, %fd1, %fd3; selp.b32 %r16, %r1, %r2, %p1;
	@%p2 add.u32 %r16, %r16, 1;
	shfl.sync.bfly.b32 %r17, %r16, 1, 0x1f, 0xffffffff;
	vote.sync.ballot.b32 %r18, %p1, 0xffffffff;
	add.u32 %r19, %r17, %r18; add.u32 %r19, %r19, %r3; add.u32 %r19, %r19, %r4; add.u32 %r19, %r19, %r5;
	add.u32 %r19, %r19, %r6; add.u32 %r19, %r19, %r7; add.u32 %r19, %r19, %r8; add.u32 %r19, %r19, %r9;
	add.u32 %r19, %r19, %r10; add.u32 %r19, %r19, %r11; add.u32 %r19, %r19, %r12; add.u32 %r19, %r19, %r13;
	add.u32 %r19, %r19, %r14; add.u32 %r19, %r19, %r15;
	st.global.u32 [%rd1], %r19; st.global.f32 [%rd1+4], %f3; st.global.f32 [%rd1+8], %f4;
	st.global.f32 [%rd1+12], %f5; st.global.f32 [%rd1+16], %f6; st.global.f32 [%rd1+20], %f7;
	st.global.f64 [%rd1+24], %fd4;
	atom.global.add.u32 %r1, [%rd1+32], %r2; red.global.max.s32 [%rd1+36], %r1;
	ret;
}
`, `
.version 7.8
.target sm_80
.address_size 64
.visible .entry probe_forms(.param .u64 out, .param .u32 n, .param .f32 f, .param .b32 h)
{
	.reg .u32 %r<24>; .reg .u64 %rd<4>; .reg .f32 %f<8>; .reg .b32 %h<6>; .reg .b16 %s<4>; .reg .pred %p<4>;
	ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n]; ld.param.f32 %f1, [f]; ld.param.b32 %h1, [h];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r2, %tid.x; cvt.rn.f32.u32 %f2, %r2;
	set.lt.u32.f32 %r3, %f1, %f2; set.lt.f32.f32 %f3, %f1, %f2;
	add.rn.f16x2 %h2, %h1, %h1; mul.rn.f16x2 %h3, %h2, %h1; fma.rn.f16x2 %h4, %h3, %h1, %h2;
	cvt.rn.f16.f32 %s1, %f1; cvt.f32.f16 %f4, %s1; cvt.rn.bf16x2.f32 %h5, %f1, %f2;
	setp.lt.u32 %p1, %r2, 16;
	bar.red.popc.u32 %r4, 0, %p1; bar.red.and.pred %p2, 0, %p1;
	selp.u32 %r5, 1, 0, %p2;
	mov.u32 %r6, 0; mov.u32 %r7, 0;
LOOP:
	add.u32 %r6, %r6, %r2; add.u32 %r7, %r7, 1;
	setp.lt.u32 %p3, %r7, %r1;
	@%p3 bra.uni LOOP;
	and.b32 %r8, %r2, 1;
	ts: .branchtargets A, B;
	brx.idx %r8, ts;
A:
	add.u32 %r6, %r6, 3;
	bra.uni C;
B:
	add.u32 %r6, %r6, 5;
C:
	add.u32 %r9, %r3, %r4; add.u32 %r9, %r9, %r5; add.u32 %r9, %r9, %r6; add.u32 %r9, %r9, %h4; add.u32 %r9, %r9, %h5;
	st.global.u32 [%rd1], %r9; st.global.f32 [%rd1+4], %f3; st.global.f32 [%rd1+8], %f4;
	atom.global.cas.b32 %r10, [%rd1+12], %r2, %r9;
	st.global.u32 [%rd1+16], %r10;
	ret;
}
`, `
.version 8.0
.target sm_80
.address_size 64
.visible .entry probe_mma(.param .u64 out)
{
	.reg .b32 %r<40>; .reg .b64 %rd<4>; .reg .f64 %fd<10>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r0, %tid.x;
	add.u32 %r1, %r0, 1; add.u32 %r2, %r0, 2; add.u32 %r3, %r0, 3; add.u32 %r4, %r0, 4;
	add.u32 %r5, %r0, 5; add.u32 %r6, %r0, 6; add.u32 %r7, %r0, 7; add.u32 %r8, %r0, 8;
	add.u32 %r9, %r0, 9; add.u32 %r10, %r0, 10;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r11,%r12,%r13,%r14}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r15,%r16}, {%r11,%r12,%r13,%r14}, {%r5,%r6}, {%r7,%r8};
	mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r17,%r18,%r19,%r20}, {%r15,%r16}, {%r5}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r21,%r22}, {%r17,%r18}, {%r5}, {%r7,%r8};
	mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r11,%r12,%r13,%r14}, {%r21,%r22,%r3,%r4}, {%r5,%r6}, {%r17,%r18,%r19,%r20};
	mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%r17,%r18,%r19,%r20}, {%r11,%r12}, {%r5}, {%r13,%r14,%r9,%r10};
	mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r11,%r12,%r13,%r14}, {%r17,%r18,%r19,%r20}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%r17,%r18,%r19,%r20}, {%r11,%r12}, {%r5}, {%r13,%r14,%r9,%r10};
	mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r11,%r12,%r13,%r14}, {%r17,%r18,%r19,%r20}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%r17,%r18,%r19,%r20}, {%r11,%r12,%r13,%r14}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r11,%r12,%r13,%r14}, {%r17,%r18,%r19,%r20}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%r17,%r18,%r19,%r20}, {%r11,%r12,%r13,%r14}, {%r5,%r6}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r11,%r12,%r13,%r14}, {%r17,%r18}, {%r5}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%r17,%r18,%r19,%r20}, {%r11,%r12}, {%r5}, {%r7,%r8,%r9,%r10};
	mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r11,%r12}, {%r17}, {%r5}, {%r7,%r8};
	mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32 {%r13,%r14}, {%r11}, {%r5}, {%r7,%r8};
	mov.b64 %fd1, {%r13,%r14}; mov.b64 %fd2, {%r11,%r12}; mov.b64 %fd3, {%r19,%r20};
	mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd4,%fd5}, {%fd1}, {%fd2}, {%fd3,%fd1};
	mov.b64 {%r1,%r2}, %fd4; mov.b64 {%r3,%r4}, %fd5;
	add.u32 %r30, %r1, %r2; add.u32 %r30, %r30, %r3; add.u32 %r30, %r30, %r4; add.u32 %r30, %r30, %r17;
	add.u32 %r30, %r30, %r18; add.u32 %r30, %r30, %r19; add.u32 %r30, %r30, %r20; add.u32 %r30, %r30, %r13;
	add.u32 %r30, %r30, %r12; add.u32 %r30, %r30, %r14;add.u32 %r30, %r30, %r11;
	st.global.u32 [%rd1], %r30;
	ret;
}
`, `
.version 8.0
.target sm_90
.address_size 64
.visible .entry probe_ldsm(.param .u64 out)
{
	.reg .b32 %r<40>; .reg .b64 %rd<4>; .shared .align 16 .b8 sm[4096]; .reg .f32 %f<4>; .reg .b16 %h<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r0, %tid.x; shl.b32 %r1, %r0, 4; mov.u32 %r2, sm; add.u32 %r1, %r1, %r2;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r3}, [%r1];
	ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r4,%r5}, [%r1+32];
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6,%r7,%r8,%r9}, [%r1+64];
	ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r10}, [%r1];
	ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r11,%r12}, [%r1+16];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r13,%r14,%r15,%r16}, [%r1];
	stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r3};
	stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1+32], {%r4,%r5};
	stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1+64], {%r6,%r7,%r8,%r9};
	stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%r1], {%r10};
	stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r1+16], {%r11,%r12};
	stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r1], {%r13,%r14,%r15,%r16};
	bar.sync 0;
	ld.shared.u32 %r20, [%r1+4];
	add.u32 %r30, %r3, %r4; add.u32 %r30, %r30, %r5; add.u32 %r30, %r30, %r6; add.u32 %r30, %r30, %r7;
	add.u32 %r30, %r30, %r8; add.u32 %r30, %r30, %r9; add.u32 %r30, %r30, %r10; add.u32 %r30, %r30, %r11;
	add.u32 %r30, %r30, %r12; add.u32 %r30, %r30, %r13; add.u32 %r30, %r30, %r14; add.u32 %r30, %r30, %r15; add.u32 %r30, %r30, %r16; add.u32 %r30, %r30, %r20;
	st.global.u32 [%rd1], %r30;
	ret;
}
`, `
.version 8.0
.target sm_80
.address_size 64
.visible .entry probe_ldsm80(.param .u64 out)
{
	.reg .b32 %r<40>; .reg .b64 %rd<4>; .shared .align 16 .b8 sm[4096]; .reg .f32 %f<4>; .reg .b16 %h<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r0, %tid.x; shl.b32 %r1, %r0, 4; mov.u32 %r2, sm; add.u32 %r1, %r1, %r2;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r3}, [%r1];
	ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r4,%r5}, [%r1+32];
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r6,%r7,%r8,%r9}, [%r1+64];
	ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r10}, [%r1];
	ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r11,%r12}, [%r1+16];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r13,%r14,%r15,%r16}, [%r1];
	bar.sync 0;
	ld.shared.u32 %r20, [%r1+4];
	add.u32 %r30, %r3, %r4; add.u32 %r30, %r30, %r5; add.u32 %r30, %r30, %r6; add.u32 %r30, %r30, %r7;
	add.u32 %r30, %r30, %r8; add.u32 %r30, %r30, %r9; add.u32 %r30, %r30, %r10; add.u32 %r30, %r30, %r11;
	add.u32 %r30, %r30, %r12; add.u32 %r30, %r30, %r13; add.u32 %r30, %r30, %r14; add.u32 %r30, %r30, %r15; add.u32 %r30, %r30, %r16; add.u32 %r30, %r30, %r20;
	st.global.u32 [%rd1], %r30;
	ret;
}
`, `
.version 8.1
.target sm_89
.address_size 64
.visible .entry probe_fp8(.param .u64 out, .param .f32 f, .param .f32 g, .param .b16 h)
{
	.reg .b16 %s<8>; .reg .f32 %f<4>; .reg .b64 %rd<2>; .reg .b32 %r<8>;
	ld.param.u64 %rd1, [out]; ld.param.f32 %f1, [f]; ld.param.f32 %f2, [g]; ld.param.b16 %s1, [h];
	cvt.rn.satfinite.e4m3x2.f32 %s2, %f1, %f2;
	cvt.rn.satfinite.e5m2x2.f32 %s3, %f1, %f2;
	cvt.rn.satfinite.relu.e4m3x2.f32 %s4, %f1, %f2;
	cvt.rn.f16x2.e4m3x2 %r1, %s1;
	cvt.rn.f16x2.e5m2x2 %r2, %s1;
	cvt.rn.relu.f16x2.e4m3x2 %r3, %s1;
	st.global.b16 [%rd1], %s2; st.global.b16 [%rd1+2], %s3; st.global.b16 [%rd1+4], %s4;
	st.global.b32 [%rd1+8], %r1; st.global.b32 [%rd1+12], %r2; st.global.b32 [%rd1+16], %r3;
	ret;
}
`, `
.version 7.8
.target sm_75
.address_size 64
.visible .entry probe_f2f16(.param .u64 out, .param .f32 f, .param .b16 h)
{
	.reg .b16 %s<4>; .reg .f32 %f<4>; .reg .b64 %rd<2>; .reg .b32 %r<4>;
	ld.param.u64 %rd1, [out]; ld.param.f32 %f1, [f]; ld.param.b16 %s2, [h];
	cvt.rn.f16.f32 %s1, %f1;
	cvt.rz.f16.f32 %s3, %f1;
	cvt.f32.f16 %f2, %s2;
	st.global.b16 [%rd1], %s1; st.global.b16 [%rd1+2], %s3; st.global.f32 [%rd1+4], %f2;
	ret;
}
`}

var (
	instRe  = regexp.MustCompile(`^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/`)
	hiRe    = regexp.MustCompile(`^\s+/\* (0x[0-9a-f]{16}) \*/`)
	labelRe = regexp.MustCompile(`^(\.L_x_[0-9]+):`)
	textRe  = regexp.MustCompile(`^//-+ \.text\.`)
	refRe   = regexp.MustCompile("`\\((\\.L_x_[0-9]+)\\)")
)

type sample struct {
	addr   int
	lo, hi uint64
	text   string
}

func main() {
	out := flag.String("o", "pipeline/sass/testdata/ptxas", "output directory")
	per := flag.Int("n", 2, "words kept per instruction form")
	sr := flag.Bool("sr", false, "print the special-register names of S2R's index field and exit")
	flag.Parse()
	ptxas, err := nvtools.Find(nvtools.Ptxas)
	check(err)
	nvdisasm, err := nvtools.Find(nvtools.Nvdisasm)
	check(err)
	if *sr {
		srSweep(nvdisasm)
		return
	}
	tmp, err := os.MkdirTemp("", "orilab-gen")
	check(err)
	defer os.RemoveAll(tmp)
	var inputs []string
	for _, g := range []string{"testdata/kernels/*.ptx", "testdata/cuda/*.ptx"} {
		m, _ := filepath.Glob(g)
		inputs = append(inputs, m...)
	}
	for i, p := range probes {
		f := filepath.Join(tmp, fmt.Sprintf("probe%d.ptx", i))
		check(atomicfile.Write(f, []byte(p)))
		inputs = append(inputs, f)
	}
	sort.Strings(inputs)
	check(os.MkdirAll(*out, 0o755))
	version := toolVersion(ptxas) + "; " + toolVersion(nvdisasm)
	for _, arch := range []int{75, 80, 86, 89, 90} {
		seen := map[string]int{}
		var keep []sample
		for _, in := range inputs {
			cubin := filepath.Join(tmp, "k.cubin")
			if err := exec.Command(ptxas, fmt.Sprintf("-arch=sm_%d", arch), "-o", cubin, in).Run(); err != nil {
				continue // a kernel for a newer target, or one ptxas rejects
			}
			listing, err := exec.Command(nvdisasm, "-c", "-hex", cubin).Output()
			if err != nil {
				continue
			}
			for _, s := range parse(string(listing)) {
				k := formKey(s.text)
				if seen[k] < *per {
					seen[k]++
					keep = append(keep, s)
				}
			}
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "# sm_%d words written by %s, disassembled by nvdisasm -hex;\n# generated by go run ./pipeline/sass/internal/gen (do not edit)\n", arch, version)
		for _, s := range keep {
			fmt.Fprintf(&b, "%04x %016x %016x %s\n", s.addr, s.lo, s.hi, s.text)
		}
		check(atomicfile.Write(filepath.Join(*out, fmt.Sprintf("sm%d.txt", arch)), b.Bytes()))
		fmt.Printf("sm_%d: %d words, %d forms\n", arch, len(keep), len(seen))
	}
}

// parse reads nvdisasm -hex output: per function, the instructions with
// their addresses and words, branch labels replaced by addresses.
func parse(listing string) []sample {
	var all []sample
	var fn []sample
	labels := map[string]int{}
	pending := []string{}
	flush := func() {
		for _, s := range fn {
			s.text = refRe.ReplaceAllStringFunc(s.text, func(m string) string {
				l := refRe.FindStringSubmatch(m)[1]
				if a, ok := labels[l]; ok {
					return fmt.Sprintf("0x%x", a)
				}
				return m
			})
			all = append(all, s)
		}
		fn, labels, pending = nil, map[string]int{}, nil
	}
	lines := strings.Split(listing, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if textRe.MatchString(l) {
			flush()
			continue
		}
		if m := labelRe.FindStringSubmatch(l); m != nil {
			pending = append(pending, m[1])
			continue
		}
		m := instRe.FindStringSubmatch(l)
		if m == nil || i+1 >= len(lines) {
			continue
		}
		h := hiRe.FindStringSubmatch(lines[i+1])
		if h == nil {
			continue
		}
		addr, _ := strconv.ParseInt(m[1], 16, 64)
		for _, p := range pending {
			labels[p] = int(addr)
		}
		pending = nil
		lo, _ := strconv.ParseUint(m[3][2:], 16, 64)
		hi, _ := strconv.ParseUint(h[1][2:], 16, 64)
		fn = append(fn, sample{addr: int(addr), lo: lo, hi: hi, text: strings.TrimSpace(m[2]) + " ;"})
	}
	flush()
	return all
}

var (
	regRe = regexp.MustCompile(`\b(?:U?R[0-9]+|U?P[0-6])\b`)
	immRe = regexp.MustCompile(`-?0x[0-9a-f]+|[-+]?[0-9][0-9.e+-]*`)
)

// formKey is the mnemonic with its modifiers and the kinds of its
// operands: registers, immediates and constants generalized.
func formKey(text string) string {
	t := regRe.ReplaceAllString(text, "R")
	t = immRe.ReplaceAllString(t, "I")
	return t
}

func toolVersion(tool string) string {
	out, err := exec.Command(tool, "--version").Output()
	if err != nil {
		return filepath.Base(tool)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return filepath.Base(tool) + " " + strings.TrimSpace(lines[len(lines)-1])
}

// srSweep disassembles S2R R2 with every value of its index field.
func srSweep(nvdisasm string) {
	var b bytes.Buffer
	for i := 0; i < 256; i++ {
		var w [16]byte
		binary.LittleEndian.PutUint64(w[:], 0x0000000000027919)
		binary.LittleEndian.PutUint64(w[8:], 0x000e240000000000|uint64(i)<<8)
		b.Write(w[:])
	}
	dir, err := os.MkdirTemp("", "orilab-sr")
	check(err)
	defer os.RemoveAll(dir)
	raw := filepath.Join(dir, "sr.bin")
	check(atomicfile.Write(raw, b.Bytes()))
	out, err := exec.Command(nvdisasm, "-b", "SM90", raw).Output()
	check(err)
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for sc.Scan() {
		if _, name, ok := strings.Cut(sc.Text(), "S2R R2, "); ok {
			fmt.Printf("0x%02x %s\n", i, strings.TrimSuffix(strings.TrimSpace(name), " ;"))
			i++
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
