package regalloc_test

// Shared helpers of the allocator's tests: compiling PTX to the IR right
// before AllocateRegisters, allocating a copy, checking the invariants
// every allocation must satisfy, and executing a spec on the result.
// Also the Go references of the kernels in testdata/ and -update, which
// rewrites their expected outputs from those references.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/spec"
	"orilab/pipeline/verifyra"
)

var update = flag.Bool("update", false, "rewrite testdata/*.hex from the Go references")

// lastPreRA is the phase right before AllocateRegisters (122).
const lastPreRA = 121

// preRA compiles a PTX file to the IR the allocator receives.
func preRA(tb testing.TB, file string, src []byte, arch, opt int) *ori.Module {
	tb.Helper()
	s, err := pipeline.NewSession(file, src, pipeline.Options{Arch: arch}, pipeline.PhaseOptions{OptLevel: opt, NoSnapshots: true})
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	if err := s.RunTo(lastPreRA); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return s.Module()
}

// allocated is a module after allocation with the statistics of each
// function.
type allocated struct {
	m     *ori.Module
	stats map[string]*regalloc.Stats
}

// allocate allocates a copy of m and checks the result's invariants:
// no virtual register is left, every R register is below the target
// unless the code named it before allocation, the spill byte counts
// match the spill instructions, the IR verifies, the frame is 16-byte
// aligned, and the post-allocation reaching-definitions verifier accepts
// the allocation.
func allocate(tb testing.TB, m *ori.Module, opts regalloc.Options) (*allocated, error) {
	tb.Helper()
	c := m.Clone()
	res := &allocated{m: c, stats: map[string]*regalloc.Stats{}}
	for _, f := range c.Funcs {
		pre := physicalR(f)
		st, err := regalloc.Allocate(f, opts)
		if err != nil {
			return nil, err
		}
		res.stats[f.Name] = st
		if err := f.ComputeCFG(); err != nil {
			tb.Fatal(err)
		}
		checkAllocated(tb, f, st, pre)
		if err := verifyra.VerifyReachingDefs(m.Func(f.Name), f); err != nil {
			tb.Fatalf("%s: the reaching-definitions verifier rejects the allocation: %v\n%s", f.Name, err, f)
		}
	}
	return res, nil
}

// physicalR returns the highest R register (plus one) the code names
// before allocation.
func physicalR(f *ori.Func) int {
	h := 0
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			eachOperandReg(in, func(r ori.Reg) {
				if r.Class == ori.ClassR && !r.Virtual && !r.IsZero() {
					h = max(h, int(r.N)+int(r.Words))
				}
			})
		}
	}
	return h
}

func eachOperandReg(in *ori.Inst, fn func(ori.Reg)) {
	fn(in.Guard)
	for _, ops := range [][]ori.Operand{in.Dsts, in.Srcs} {
		for _, o := range ops {
			switch o.Kind {
			case ori.OpdReg:
				fn(o.Reg)
			case ori.OpdMem, ori.OpdCBank:
				if o.HasBase {
					fn(o.Reg)
				}
			}
		}
	}
}

func checkAllocated(tb testing.TB, f *ori.Func, st *regalloc.Stats, preR int) {
	tb.Helper()
	var storeB, loadB, stores, loads int
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			eachOperandReg(in, func(r ori.Reg) {
				if r.Virtual {
					tb.Fatalf("%s #%d: virtual register %s after allocation: %s", f.Name, in.ID, r, in)
				}
				if r.Class == ori.ClassR && !r.IsZero() && int(r.N)+int(r.Words) > max(st.Target, preR) {
					tb.Fatalf("%s #%d: %s is above the target of %d registers: %s", f.Name, in.ID, r, st.Target, in)
				}
				if !r.IsZero() && r.Words > 1 && int(r.N)%int(r.Words) != 0 {
					tb.Fatalf("%s #%d: misaligned tuple %s: %s", f.Name, in.ID, r, in)
				}
			})
			size := 4
			switch {
			case in.HasMod("128"):
				size = 16
			case in.HasMod("64"):
				size = 8
			}
			if in.Op == ori.OpSTL && in.Role == ori.RoleSpill {
				stores++
				storeB += size
			}
			if in.Op == ori.OpLDL && in.Role == ori.RoleRefill {
				loads++
				loadB += size
			}
		}
	}
	if storeB != st.SpillStoreBytes || loadB != st.SpillLoadBytes || stores != st.SpillStores || loads != st.SpillLoads {
		tb.Fatalf("%s: stats say %d stores (%d bytes) and %d loads (%d bytes); the code has %d (%d bytes) and %d (%d bytes)",
			f.Name, st.SpillStores, st.SpillStoreBytes, st.SpillLoads, st.SpillLoadBytes, stores, storeB, loads, loadB)
	}
	if f.LocalBytes%16 != 0 || st.StackFrame != f.LocalBytes {
		tb.Fatalf("%s: frame of %d bytes (stats %d); frames are multiples of 16", f.Name, f.LocalBytes, st.StackFrame)
	}
	if err := ori.Verify(f, ori.VerifyOptions{}); err != nil {
		tb.Fatalf("%s: the allocated IR does not verify: %v\n%s", f.Name, err, f)
	}
}

// execute runs spec s on m and reports a mismatch or error.
func execute(m *ori.Module, s *spec.Spec) error {
	rep, err := pipeline.Execute(m, s, pipeline.RunOptions{MaxWarpSteps: 5_000_000})
	if err != nil {
		return err
	}
	if !rep.Pass {
		return fmt.Errorf("mismatch:\n%s", spec.FormatResults(rep.Results))
	}
	return nil
}

// loadSpec loads a spec and its PTX source.
func loadSpec(tb testing.TB, path string) (*spec.Spec, []byte) {
	tb.Helper()
	s, err := spec.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		tb.Fatal(err)
	}
	return s, src
}

// The Go references of testdata/*.ptx.

// lcg is the spec format's "lcg:SEED" fill.
func lcg(seed uint32, n int) []uint32 {
	out := make([]uint32, n)
	x := seed
	for i := range out {
		x = 1664525*x + 1013904223
		out[i] = x
	}
	return out
}

func pressureRef(in []uint32, n uint32, threads int) []uint32 {
	out := make([]uint32, 2*threads)
	for t := 0; t < threads; t++ {
		r := append([]uint32(nil), in[24*t:24*t+24]...)
		var p [10]bool
		for j := range p {
			p[j] = r[j] > r[j+1]
		}
		acc, i := uint32(0), uint32(0)
		for {
			acc = acc*3 + r[0]
			for k := 0; k < 23; k++ {
				r[k] += r[k+1]
			}
			r[23] ^= acc
			i++
			if !(i < n) {
				break
			}
		}
		var s, a uint32
		for k := 0; k < 24; k++ {
			s += r[k] * uint32(k+1)
		}
		for j := 0; j < 10; j++ {
			if p[j] {
				a += r[j]
			} else {
				a += r[j+10]
			}
		}
		out[2*t], out[2*t+1] = s, a^acc
	}
	return out
}

func wideRef(in []uint32, threads int) []uint32 {
	out := make([]uint32, 8*threads)
	for t := 0; t < threads; t++ {
		w := in[32*t : 32*t+32]
		r := w[:16]
		var rd, x [8]uint64
		for k := range rd {
			rd[k] = uint64(w[16+2*k]) | uint64(w[17+2*k])<<32
		}
		for k := range x {
			x[k] = rd[k]*(rd[(k+1)%8]|1) + uint64(r[k])
		}
		o := out[8*t : 8*t+8]
		for j := 0; j < 4; j++ {
			o[j] = ((r[j] + r[j+4]) ^ r[j+8]) - r[j+12]
		}
		var y, z uint64
		for k := 0; k < 8; k++ {
			y ^= x[k]
			z += x[7-k] >> (k + 1)
		}
		o[4], o[5], o[6], o[7] = uint32(y), uint32(y>>32), uint32(z), uint32(z>>32)
	}
	return out
}

func mixRef(a, b uint32) uint32 {
	t := [8]uint32{}
	t[0] = a * 7
	t[1] = a ^ b
	t[2] = t[0] + b
	t[3] = b << 3
	t[4] = t[3] - a
	t[5] = t[1] * t[2]
	t[6] = t[4] + t[5]
	t[7] = t[6] ^ t[0]
	t10 := t[a&7]
	var t11 uint32
	for _, x := range t {
		t11 += x
	}
	t12 := t11
	if t10 > t11 {
		t12 = t10
	}
	return t12 ^ t[7]
}

func callsRef(in []uint32, n uint32, threads int) []uint32 {
	out := make([]uint32, threads)
	for t := 0; t < threads; t++ {
		r := in[12*t : 12*t+12]
		p := [4]bool{r[0] < r[1], r[2] < r[3], r[4] < r[5], r[6] < r[7]}
		r20, r21 := uint32(0), uint32(0)
		for {
			r20 = mixRef(r20^r[0], r21)
			r20 += r[1]
			r23 := mixRef(r20, r[2])
			r20 ^= r23
			r21++
			if !(r21 < n) {
				break
			}
		}
		sel := func(c bool, a, b uint32) uint32 {
			if c {
				return a
			}
			return b
		}
		s := sel(p[0], r[3], r[4]) + sel(p[1], r[5], r[6]) + sel(p[2], r[7], r[8]) + sel(p[3], r[9], r[10])
		s += r[11] + uint32(t)
		out[t] = s ^ r20
	}
	return out
}

// references maps each testdata spec to its expected output, for -update
// and for the test that the committed expectations match the references.
var references = map[string]func() []uint32{
	"pressure": func() []uint32 { return pressureRef(lcg(11, 64*24), 5, 64) },
	"wide":     func() []uint32 { return wideRef(lcg(5, 32*32), 32) },
	"calls":    func() []uint32 { return callsRef(lcg(3, 32*12), 3, 32) },
	"guardret": func() []uint32 { return guardretRef(32) },
}

// guardretRef is testdata/guardret.ptx: mid(t) returns leaf(t)+7t early
// when it called leaf and the result is even, 7t + (t^0x55) otherwise.
func guardretRef(threads int) []uint32 {
	out := make([]uint32, threads)
	for i := range out {
		t := uint32(i)
		r2, r3 := t*7, t^0x55
		out[i] = r2 + r3
		if t&4 == 0 {
			if r5 := t*3 + 1; r5&1 == 0 {
				out[i] = r5 + r2
			}
		}
	}
	return out
}

// TestReferences checks that testdata/NAME.out.hex holds what the Go
// reference computes (with -update, writes it).
func TestReferences(t *testing.T) {
	for name, ref := range references {
		var b strings.Builder
		for _, v := range ref() {
			fmt.Fprintf(&b, "0x%08x\n", v)
		}
		path := filepath.Join("testdata", name+".out.hex")
		if *update {
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != b.String() {
			t.Errorf("%s differs from the Go reference; rerun with -update", path)
		}
	}
}
