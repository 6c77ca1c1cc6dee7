package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
	"orilab/pipeline/sim"
	"orilab/pipeline/spec"
)

// The planted miscompiles replace a phase's work with a break, in
// GeneralOptimizeEarly: the first transforming phase at -O3 (only dead
// code elimination and OriSanitize run before it), so what reaches the
// plant does not depend on the optimizer phases being built around it.
const plantPhase = "GeneralOptimizeEarly"

// shiftGlobalStores moves every global store's address up by 4 bytes (one
// f32 element).
func shiftGlobalStores(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpSTG && len(in.Srcs) > 0 && in.Srcs[0].Kind == ori.OpdMem {
					in.Srcs[0].Imm += 4
				}
			}
		}
	}
	return nil
}

// flipGE makes every ISETP with .GE compare the other way (.LT).
func flipGE(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op != ori.OpISETP {
					continue
				}
				for i, m := range in.Mods {
					if m == "GE" {
						in.Mods[i] = "LT"
					}
				}
			}
		}
	}
	return nil
}

// rejectGE fails the compilation at the first ISETP with .GE.
func rejectGE(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpISETP && in.HasMod("GE") {
					return fmt.Errorf("%s: BB%d #%d: %s on %s is not handled", f.Name, b.ID, in.ID, in.Name(), in.Srcs[0])
				}
			}
		}
	}
	return nil
}

func loadMatmul(t *testing.T) *spec.Spec {
	t.Helper()
	s, err := spec.Load("testdata/reduce/matmul_tiled.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func reduceOpts() ReduceOptions {
	return ReduceOptions{Options: Options{Request: pipeline.Request{OptLevel: 3}}}
}

// reducedInstrs returns the instruction lines of a reduced module.
func reducedInstrs(t *testing.T, src string) []string {
	t.Helper()
	m, err := ptx.Parse("reduced.ptx", []byte(src))
	if err != nil {
		t.Fatalf("the reduced PTX does not parse: %v\n%s", err, src)
	}
	var out []string
	walk(m, func(_ int, s ptx.Stmt, _ []ptx.Stmt, _ int) {
		if in, ok := s.(*ptx.Instr); ok {
			out = append(out, ptx.FormatInstr(in))
		}
	})
	return out
}

// TestReduceStoreShift is the acceptance test: a planted miscompile in a
// clang-generated kernel (every global store lands one element too far)
// reduces to at most 20% of the kernel's instructions, and the reduced
// case, written out and loaded back, fails with the same signature.
func TestReduceStoreShift(t *testing.T) {
	s := loadMatmul(t)
	restore := pipeline.SetPhaseOverrideForTest(plantPhase, shiftGlobalStores)
	defer restore()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{Kind: SigMiscompile, Phase: plantPhase, Failure: "wrong values in C"}
	if !res.Found || res.Signature == nil || *res.Signature != want || res.TimedOut {
		t.Fatalf("found %v (%s), signature %v, want %v", res.Found, res.Reason, res.Signature, want)
	}
	t.Logf("%d -> %d instructions, launch %s -> %s, %d candidates (%d cached), %d executions, %.1fs, passes %+v",
		res.InstsBefore, res.InstsAfter, res.LaunchBefore, res.LaunchAfter, res.Candidates, res.CacheHits, res.Executions, res.Seconds, res.Passes)
	if res.InstsBefore != 123 {
		t.Errorf("InstsBefore = %d, want the 123 instructions of matmul_tiled.ptx", res.InstsBefore)
	}
	if res.InstsAfter*5 > res.InstsBefore {
		t.Errorf("reduced to %d of %d instructions, want at most 20%%:\n%s", res.InstsAfter, res.InstsBefore, res.PTX)
	}
	instrs := reducedInstrs(t, res.PTX)
	if len(instrs) != res.InstsAfter {
		t.Errorf("InstsAfter = %d, the reduced PTX has %d", res.InstsAfter, len(instrs))
	}
	// What must survive: the store (the miscompile moves it) and the ret.
	joined := strings.Join(instrs, "\n")
	if !strings.Contains(joined, "st.global.f32") || instrs[len(instrs)-1] != "ret;" {
		t.Errorf("the reduced kernel lost its store or its ret:\n%s", joined)
	}
	if res.LaunchAfter != "grid 1x1x1 block 1x1x1" {
		t.Errorf("launch after = %q, want one thread", res.LaunchAfter)
	}
	if len(res.Mismatches) != 1 || res.Mismatches[0].Param != "C" || res.ExecError != "" {
		t.Errorf("mismatches %+v, exec error %q", res.Mismatches, res.ExecError)
	}

	dir := t.TempDir()
	if err := WriteReduced(res, dir); err != nil {
		t.Fatal(err)
	}
	if res.PTXFile != filepath.Join(dir, "matmul_tiled.reduced.ptx") || res.SpecFile != filepath.Join(dir, "matmul_tiled.reduced.json") {
		t.Errorf("files %q %q", res.PTXFile, res.SpecFile)
	}
	if b, err := os.ReadFile(res.PTXFile); err != nil || string(b) != res.PTX {
		t.Errorf("written PTX differs from the result (%v)", err)
	}
	rs, err := spec.Load(res.SpecFile)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Name != "matmul_tiled.reduced" || len(rs.Expect) != 3 || rs.Launch.Grid != [3]int{1, 1, 1} || rs.Launch.Block != [3]int{1, 1, 1} {
		t.Errorf("reduced spec: name %q, %d expectations, launch %v", rs.Name, len(rs.Expect), rs.Launch)
	}
	wantRepro := "orilab bisect " + res.SpecFile + " -O 3 --mode phase"
	if res.Reproduce != wantRepro || res.Replay != "orilab reduce testdata/reduce/matmul_tiled.json -O 3" {
		t.Errorf("reproduce %q, replay %q", res.Reproduce, res.Replay)
	}

	// `orilab run` on the reduced spec shows the failure (its expectations
	// are its lowered IR's output) ...
	rep, err := pipeline.RunSpec(rs, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 3}})
	if err != nil || rep.Pass {
		t.Errorf("run on the reduced spec: pass %v, err %v", rep != nil && rep.Pass, err)
	}
	// ... phase mode names the same culprit ...
	pr, err := Phase(context.Background(), rs, Options{Request: pipeline.Request{OptLevel: 3}})
	if err != nil || !pr.Found || pr.Name != plantPhase {
		t.Errorf("bisect on the reduced spec: %+v, %v", pr, err)
	}
	// ... reducing it again keeps the signature and finds nothing to cut ...
	again, err := Reduce(context.Background(), rs, reduceOpts())
	if err != nil || !again.Found || *again.Signature != want || again.InstsAfter != res.InstsAfter {
		t.Errorf("reducing the reduced case: %+v, %v", again, err)
	}
	// ... and without the plant it passes: the failure is the plant's.
	restore()
	rep, err = pipeline.RunSpec(rs, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 3}})
	if err != nil || !rep.Pass {
		t.Errorf("without the plant the reduced spec should pass: %+v, %v", rep, err)
	}
}

// TestReduceFaultSignature: flipping .GE makes the tiled loop read past
// its buffers; the signature is the fault's class, which the reduction
// keeps, and so does the reduced case.
func TestReduceFaultSignature(t *testing.T) {
	if testing.Short() {
		t.Skip("a second whole reduction; TestReduceStoreShift covers the passes")
	}
	s := loadMatmul(t)
	defer pipeline.SetPhaseOverrideForTest(plantPhase, flipGE)()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{Kind: SigMiscompile, Phase: plantPhase, Failure: "fault: out-of-bounds global load of _ bytes at address 0x_"}
	if !res.Found || *res.Signature != want {
		t.Fatalf("signature %v, want %v", res.Signature, want)
	}
	if res.InstsAfter*5 > res.InstsBefore {
		t.Errorf("reduced to %d of %d instructions:\n%s", res.InstsAfter, res.InstsBefore, res.PTX)
	}
	if !strings.Contains(res.PTX, "setp.ge.s32") || !strings.Contains(res.PTX, "ld.global.f32") {
		t.Errorf("the reduced kernel lost the compare or the load:\n%s", res.PTX)
	}
	if !strings.Contains(res.ExecError, "out-of-bounds global load of 4 bytes") {
		t.Errorf("exec error %q", res.ExecError)
	}
}

// TestReduceCompileError: a phase that fails on ISETP.GE. The signature
// is its message with the IDs normalized; the reduced kernel keeps a
// compare whose result is used and whose operands are not constants (else
// the early phases fold or delete it), and the reduced spec is
// compile_only.
func TestReduceCompileError(t *testing.T) {
	s := loadMatmul(t)
	defer pipeline.SetPhaseOverrideForTest(plantPhase, rejectGE)()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{Kind: SigCompileError, Phase: plantPhase,
		Failure: "phase _ GeneralOptimizeEarly: matmul_tiled: BB_ #_: ISETP.GE.AND on %r_ is not handled"}
	if !res.Found || *res.Signature != want {
		t.Fatalf("signature %v\nwant      %v", res.Signature, want)
	}
	if res.Executions != 0 {
		t.Errorf("%d executions; a compile error needs none", res.Executions)
	}
	instrs := reducedInstrs(t, res.PTX)
	// Six: the ISETP.GE, the branch it feeds, ret, and the definitions
	// its registers keep (TestReduceKeepsRegistersDefined).
	if len(instrs) > 6 || !strings.Contains(res.PTX, "\tsetp.ge.s32 ") {
		t.Errorf("reduced to:\n%s", strings.Join(instrs, "\n"))
	}
	if res.LaunchAfter != res.LaunchBefore {
		t.Errorf("the launch of a compile error changed: %s -> %s", res.LaunchBefore, res.LaunchAfter)
	}
	dir := t.TempDir()
	if err := WriteReduced(res, dir); err != nil {
		t.Fatal(err)
	}
	rs, err := spec.Load(res.SpecFile)
	if err != nil || !rs.CompileOnly {
		t.Fatalf("reduced spec: %v, compile_only %v", err, rs != nil && rs.CompileOnly)
	}
	if want := "orilab compile -O 3 --emit ir " + res.PTXFile; res.Reproduce != want {
		t.Errorf("reproduce %q, want %q", res.Reproduce, want)
	}
	_, err = pipeline.RunSpec(rs, pipeline.RunOptions{Request: pipeline.Request{OptLevel: 3}})
	if err == nil || compileSignature(err.Error()) != want {
		t.Errorf("compiling the reduced case: %v", err)
	}
}

// TestReducePasses: an unbroken kernel is not reproducible.
func TestReducePasses(t *testing.T) {
	res, err := Reduce(context.Background(), loadMatmul(t), reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	const reason = "the kernel passes at -O3 (every phase's output executes like the IR right after lowering): nothing to reduce"
	if res.Found || res.Reason != reason || res.Signature != nil {
		t.Errorf("found %v, reason %q, signature %v", res.Found, res.Reason, res.Signature)
	}
	if err := WriteReduced(res, t.TempDir()); err == nil || err.Error() != "matmul_tiled: there is no reduction to write" {
		t.Errorf("WriteReduced: %v", err)
	}
}

// TestReduceStopsEarly: cancelling the context in the middle keeps the
// best case so far, confirmed, and says so.
func TestReduceStopsEarly(t *testing.T) {
	s := loadMatmul(t)
	defer pipeline.SetPhaseOverrideForTest(plantPhase, shiftGlobalStores)()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := reduceOpts()
	kept := 0
	opts.Progress = func(line string) {
		if strings.Contains(line, "instructions left") {
			kept++
			if kept == 8 {
				cancel()
			}
		}
	}
	res, err := Reduce(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !res.TimedOut || res.Signature.Failure != "wrong values in C" {
		t.Fatalf("found %v, timed out %v, signature %v", res.Found, res.TimedOut, res.Signature)
	}
	if res.InstsAfter >= res.InstsBefore && res.LaunchAfter == res.LaunchBefore {
		t.Errorf("nothing was reduced before the stop: %d instructions, launch %s", res.InstsAfter, res.LaunchAfter)
	}
	if err := WriteReduced(res, t.TempDir()); err != nil {
		t.Error(err)
	}
}

// TestReduceErrors: inputs that cannot be reduced are errors that say
// why.
func TestReduceErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const hdr = ".version 7.0\n.target sm_80\n.address_size 64\n"
	specJSON := func(ptxName string) string {
		return `{"ptx": "` + ptxName + `", "kernel": "k", "launch": {"grid": [1], "block": [1]},
			"params": [{"name": "a", "kind": "buffer", "elem": "u32", "count": 1, "init": "zero"}]}`
	}
	write("bad.ptx", hdr+".visible .entry k(.param .u64 a)\n{\n\tfrob;\n}\n")
	s, err := spec.Load(write("bad.json", specJSON("bad.ptx")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Reduce(context.Background(), s, reduceOpts())
	if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "bad.ptx")+": the PTX does not parse, so there is nothing to reduce:\nbad.ptx:6:2: error: unknown instruction 'frob'") {
		t.Errorf("bad PTX: %v", err)
	}

	// The lowered IR itself faults: there is no oracle.
	write("oob.ptx", hdr+".visible .entry k(.param .u64 a)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n"+
		"\tld.param.u64 %rd0, [a];\n\tcvta.to.global.u64 %rd1, %rd0;\n\tld.global.u32 %r0, [%rd1+64];\n\tst.global.u32 [%rd1], %r0;\n\tret;\n}\n")
	s, err = spec.Load(write("oob.json", specJSON("oob.ptx")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Reduce(context.Background(), s, reduceOpts())
	if err == nil || !strings.Contains(err.Error(), "oob.json: the IR right after lowering (the oracle) does not execute: kernel k: instruction #") ||
		!strings.Contains(err.Error(), "out-of-bounds global load of 4 bytes") {
		t.Errorf("faulting oracle: %v", err)
	}

	// A deadline before the original is assessed.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Reduce(ctx, s, reduceOpts()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSignatureNormalization pins how messages become signatures.
func TestSignatureNormalization(t *testing.T) {
	msg := "phase 40 GeneralOptimizeMid2 broke an invariant:\nverify k BB3 #31: [use-before-def] %r12 is read before it is written\nverify k BB4 #40: [cfg] x\n--- IR before GeneralOptimizeMid2\n#31 IADD3 R4 = R5, 0x10, RZ"
	got := compileSignature(msg)
	want := Signature{Kind: SigCompileError, Phase: "GeneralOptimizeMid2",
		Failure: "phase _ GeneralOptimizeMid2 broke an invariant: verify k BB_ #_: [use-before-def] %r_ is read before it is written"}
	if got != want {
		t.Errorf("compileSignature:\n got %+v\nwant %+v", got, want)
	}
	if got := compileSignature("internal error: the phase panicked: index out of range [5] with length 3"); got.Phase != "" ||
		got.Failure != "internal error: the phase panicked: index out of range [_] with length _" {
		t.Errorf("panic: %+v", got)
	}
	f := &sim.Fault{Kernel: "k", Func: "k", Inst: 7, Op: "STG.E", Msg: "out-of-bounds global store of 4 bytes at address 0x1000c0 (4 bytes past the end of c [0x100000, 0x1000c0))"}
	if got := faultClass(fmt.Errorf("wrapped: %w", f)); got != "out-of-bounds global store of _ bytes at address 0x_" {
		t.Errorf("faultClass(fault) = %q", got)
	}
	if got := faultClass(errors.New("kernel k did not finish within 45000 warp-steps (raise the limit with --max-steps)")); got != "kernel k did not finish within _ warp-steps" {
		t.Errorf("faultClass(limit) = %q", got)
	}
	f.Msg = "barrier 0 executed in divergent code: threads 0-15 of warp 0 wait at #12 (BAR.SYNC) while threads 16-31 wait at #20 (BAR.SYNC); bar.sync is .aligned"
	if got := faultClass(f); got != "barrier _ executed in divergent code" {
		t.Errorf("faultClass(barrier) = %q", got)
	}
	if got := normalize("R12 UR3 P0 %rd7 sm_80 R4.64 #7 line 12"); got != "R_ UR_ P_ %rd_ sm_80 R_._ #_ line _" {
		t.Errorf("normalize = %q", got)
	}
}

// TestReduceDropsFunctions: other kernels and device functions go away
// whole, and the instructions of the kernel that do not matter.
func TestReduceDropsFunctions(t *testing.T) {
	dir := t.TempDir()
	const src = `.version 7.0
.target sm_80
.address_size 64

.func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [x];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}

.visible .entry other(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	{
		.param .b32 a;
		.param .b32 b;
		st.param.b32 [a], %r1;
		call.uni (b), twice, (a);
		ld.param.b32 %r2, [b];
	}
	st.global.u32 [%rd2], %r2;
	ret;
}

.visible .entry k(.param .u64 c)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [c];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.lo.s32 %r2, %r1, 3;
	add.s32 %r3, %r2, 5;
	st.global.u32 [%rd2], %r3;
	ret;
}
`
	if err := os.WriteFile(filepath.Join(dir, "m.ptx"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	specText := `{"ptx": "m.ptx", "kernel": "k", "launch": {"grid": [1], "block": [4]},
		"params": [{"name": "c", "kind": "buffer", "elem": "u32", "count": 2, "init": "zero"}]}`
	if err := os.WriteFile(filepath.Join(dir, "m.json"), []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer pipeline.SetPhaseOverrideForTest(plantPhase, shiftGlobalStores)()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	const want = `.version 7.0
.target sm_80
.address_size 64

.visible .entry k(
	.param .u64 c
)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [c];
	cvta.to.global.u64 %rd2, %rd1;
	st.global.u32 [%rd2], 1;
	ret;
}
`
	if res.PTX != want || res.InstsBefore != 19 || res.InstsAfter != 4 {
		t.Errorf("%d -> %d instructions:\n%s\nwant:\n%s", res.InstsBefore, res.InstsAfter, res.PTX, want)
	}
}

// undefGE breaks an invariant: every ISETP with .GE reads a fresh virtual
// register that nothing defines.
func undefGE(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op == ori.OpISETP && in.HasMod("GE") {
					in.Srcs[0] = ori.R(f.NewVReg(ori.ClassR, 1))
				}
			}
		}
	}
	return nil
}

// TestReduceVerifierMessage: with Verify, a phase that breaks an
// invariant fails with the verifier's message, which is the signature.
func TestReduceVerifierMessage(t *testing.T) {
	s := loadMatmul(t)
	defer pipeline.SetPhaseOverrideForTest(plantPhase, undefGE)()
	opts := reduceOpts()
	opts.Verify = true
	res, err := Reduce(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{Kind: SigCompileError, Phase: plantPhase,
		Failure: "phase _ GeneralOptimizeEarly broke an invariant: verify matmul_tiled BB_ #_: [use-before-def] %r_ is read before it is defined on some path from the entry"}
	if !res.Found || *res.Signature != want {
		t.Fatalf("signature %v\nwant      %v", res.Signature, want)
	}
	if res.InstsAfter > 5 || res.Replay != "orilab reduce testdata/reduce/matmul_tiled.json -O 3 --verify" {
		t.Errorf("%d instructions, replay %q:\n%s", res.InstsAfter, res.Replay, res.PTX)
	}
	// Without Verify, the broken invariant is only caught later, by the
	// FinalInspectionPass validation phase: another signature.
	plain, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !plain.Found || plain.Signature.Kind != SigCompileError || plain.Signature.Phase != "FinalInspectionPass" {
		t.Errorf("without Verify: %v", plain.Signature)
	}
}

// stallIncrements makes every IADD3 that adds 1 add 0 instead: a counted
// loop never ends.
func stallIncrements(c *pipeline.PhaseContext) error {
	for _, f := range c.Module.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				if in.Op != ori.OpIADD3 {
					continue
				}
				for i := range in.Srcs {
					if in.Srcs[i].Kind == ori.OpdImm && in.Srcs[i].Imm == 1 {
						in.Srcs[i].Imm = 0
					}
				}
			}
		}
	}
	return nil
}

// TestReduceEndlessLoop: a miscompile that makes a loop endless is
// bounded by the step cap (a few times the lowered IR's steps), so the
// signature is the step limit; the reproduce line passes that limit to
// bisect, which then finds the same phase.
func TestReduceEndlessLoop(t *testing.T) {
	dir := t.TempDir()
	const src = `.version 7.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 c, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [c];
	ld.param.u32 %r2, [n];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r3, %tid.x;
	mov.u32 %r1, 0;
LOOP:
	add.s32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, %r2;
	@%p1 bra LOOP;
	add.s32 %r1, %r1, %r3;
	st.global.u32 [%rd2], %r1;
	ret;
}
`
	if err := os.WriteFile(filepath.Join(dir, "loop.ptx"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	specText := `{"ptx": "loop.ptx", "kernel": "k", "launch": {"grid": [3], "block": [32]},
		"params": [{"name": "c", "kind": "buffer", "elem": "u32", "count": 4, "init": "zero"},
		           {"name": "n", "kind": "scalar", "type": "u32", "value": "1000"}]}`
	if err := os.WriteFile(filepath.Join(dir, "loop.json"), []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer pipeline.SetPhaseOverrideForTest(plantPhase, stallIncrements)()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{Kind: SigMiscompile, Phase: plantPhase, Failure: "fault: kernel k did not finish within _ warp-steps"}
	if !res.Found || *res.Signature != want {
		t.Fatalf("signature %v, want %v", res.Signature, want)
	}
	instrs := reducedInstrs(t, res.PTX)
	// The store of the loop's result stays: without it the loop only
	// computes a value nobody reads, OriPerformLiveDeadFourth deletes
	// it (opt/deadloop.go) and the planted endless loop no longer hangs.
	if strings.Join(instrs, "\n") != "ld.param.u64 %rd1, [c];\ncvta.to.global.u64 %rd2, %rd1;\nadd.s32 %r1, 0, 1;\nsetp.lt.u32 %p1, %r1, 1;\n@%p1 bra LOOP;\nst.global.u32 [%rd2], %r1;\nret;" {
		t.Errorf("reduced to:\n%s", strings.Join(instrs, "\n"))
	}
	if err := WriteReduced(res, dir); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Reproduce, " -O 3 --max-steps 10040 --mode phase") {
		t.Errorf("reproduce %q", res.Reproduce)
	}
	rs, err := spec.Load(res.SpecFile)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Phase(context.Background(), rs, Options{Request: pipeline.Request{OptLevel: 3}, MaxWarpSteps: 10040})
	if err != nil || !pr.Found || pr.Name != plantPhase || !strings.Contains(pr.ExecError, "did not finish within 10040 warp-steps") {
		t.Errorf("bisect on the reduced spec: %+v, %v", pr, err)
	}
}

// TestReduceKeepsRegistersDefined: deleting a definition leaves its
// register undefined, which PTX allows and which may keep the signature
// (here a compile error at the first ISETP.GE, whatever its operands
// hold); the reducer rejects such candidates, so the reduced kernel reads
// no register before writing it, as the original does not.
func TestReduceKeepsRegistersDefined(t *testing.T) {
	s := loadMatmul(t)
	src, err := readPTX(s)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := ptx.Parse("matmul_tiled.ptx", src)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := undefinedReads(pm, 0); err != nil || len(u) != 0 {
		t.Fatalf("the original reads undefined registers %v (%v): the test needs one that does not", u, err)
	}
	defer pipeline.SetPhaseOverrideForTest(plantPhase, rejectGE)()
	res, err := Reduce(context.Background(), s, reduceOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Signature.Kind != SigCompileError {
		t.Fatalf("found %v, signature %v", res.Found, res.Signature)
	}
	rm, err := ptx.Parse("reduced.ptx", []byte(res.PTX))
	if err != nil {
		t.Fatal(err)
	}
	if u, err := undefinedReads(rm, 0); err != nil || len(u) != 0 {
		t.Errorf("the reduced kernel reads undefined registers %v (%v):\n%s", u, err, res.PTX)
	}
	if res.UndefinedRejected == 0 {
		t.Errorf("no candidate was rejected for an undefined read: the test no longer exercises the check")
	}
	t.Logf("%d -> %d instructions, %d candidates rejected for undefined reads", res.InstsBefore, res.InstsAfter, res.UndefinedRejected)
}
