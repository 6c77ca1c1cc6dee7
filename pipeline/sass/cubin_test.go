package sass

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
)

// TestCubin writes a kernel's cubin and reads it back with NVIDIA's
// tools: cuobjdump -elf must list the sections and the attributes
// (register count, parameter layout, exit offsets), and nvdisasm must
// disassemble .text.vecadd into orilab's instructions.
func TestCubin(t *testing.T) {
	f := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R1 = c[0x0][0x28] ;
	#2 [B------:R-:W0:-:S02] S2R R2 = SR_TID.X ;
	#3 [B0-----:R-:W-:Y:S13] ISETP.GE.U32.AND P0, PT = R2, c[0x0][0x170], PT ;
	#4 [B------:R-:W-:-:S05] @P0 EXIT ;
	#5 [B------:R-:W-:-:S02] MOV R3 = 0x4 ;
	#6 [B------:R-:W-:Y:S05] IMAD.WIDE.U32 R2.64 = R2, R3, c[0x0][0x160] ;
	#7 [B------:R-:W2:-:S02] LDG.E R0 = desc[UR4][R2.64+0x10] ;
	#8 [B--2---:R-:W-:Y:S05] FFMA R5 = R0, R0, 0f3F800000 ;
	#9 [B------:R-:W-:-:S01] STG.E desc[UR4][R2.64], R5 ;
	#10 [B------:R-:W-:-:S05] EXIT ;
BB1:
	#11 [B------:R-:W-:Y:S00] BRA BB1 ;
`)
	f.Name = "vecadd"
	arch := 80
	code, err := EncodeFunc(f, arch)
	if err != nil {
		t.Fatal(err)
	}
	cubin, err := WriteCubin(arch, []CubinFunc{{Name: f.Name, Entry: true, Code: code, Regs: 10,
		Params: []CubinParam{{0, 8}, {8, 8}, {16, 4}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(cubin[:4]) != "\x7fELF" || cubin[18] != emCUDA {
		t.Fatalf("not a CUDA ELF: % x", cubin[:20])
	}
	path := filepath.Join(t.TempDir(), "vecadd.cubin")
	if err := os.WriteFile(path, cubin, 0o644); err != nil {
		t.Fatal(err)
	}
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	out, err := exec.Command(cuobjdump, "-elf", path).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump -elf: %v\n%s", err, out)
	}
	elf := string(out)
	for _, want := range []string{
		".text.vecadd", ".nv.constant0.vecadd", ".nv.info.vecadd",
		"EIATTR_REGCOUNT", "register count: 10",
		"EIATTR_KPARAM_INFO", "Ordinal : 0x2\tOffset  : 0x10\tSize    : 0x4", "Ordinal : 0x0\tOffset  : 0x0\tSize    : 0x8",
		"EIATTR_EXIT_INSTR_OFFSETS", "EIATTR_CBANK_PARAM_SIZE",
	} {
		if !strings.Contains(elf, want) {
			t.Errorf("cuobjdump -elf does not list %q:\n%s", want, elf)
		}
	}
	nvdisasm := nvtools.Require(t, nvtools.Nvdisasm)
	out, err = exec.Command(nvdisasm, "-c", path).CombinedOutput()
	if err != nil {
		t.Fatalf("nvdisasm: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if m := checkRE().instLine.FindStringSubmatch(l); m != nil {
			got = append(got, Normalize(m[1]))
		}
	}
	want, err := InstTexts(f, arch, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("nvdisasm printed %d instructions, orilab has %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		w := Normalize(want[i])
		// In a cubin nvdisasm names branch targets by label.
		if strings.Contains(w, "BRA") {
			continue
		}
		if got[i] != w {
			t.Errorf("/*%04x*/ nvdisasm %q, orilab %q", 16*i, got[i], w)
		}
	}
}

// TestCubinCallsAndGlobals: a kernel that calls a function and reads a
// .global and a .const variable. The callee is laid out in the kernel's
// .text after it, the CALL reaches it (nvdisasm names the target
// $k$helper and decodes the offset to the callee's address), the
// global's address slot in bank 4 gets an R_CUDA_64 relocation, the
// .const data sits in bank 3, and the launch bounds and barrier count
// are attributes. The kernel passes the return point in R20:R21 and the
// callee returns through it: linked, the MOV holds the address after the
// CALL counted from the kernel's start, and the RET's field points back
// at that start (nvdisasm names the kernel).
func TestCubinCallsAndGlobals(t *testing.T) {
	for _, arch := range []int{80, 90} {
		k := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R1 = c[0x0][0x28] ;
	#2 [B------:R-:W-:-:S02] MOV R2 = c[0x4][0x0] ;
	#3 [B------:R-:W-:-:S02] MOV R3 = c[0x3][0x4] ;
	#7 [B------:R-:W-:-:S02] MOV R20 = `+"`.ret`"+` ;
	#8 [B------:R-:W-:-:S02] MOV R21 = RZ ;
	#4 [B------:R-:W-:Y:S05] CALL.REL.NOINC `+"`helper`"+` ;
	#5 [B------:R-:W-:-:S05] BAR.SYNC 0x0 ;
	#6 [B------:R-:W-:-:S05] EXIT ;
`)
		h := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R4 = 0x1 ;
	#2 [B------:R-:W-:-:S05] RET.REL.NODEC R20.64 ;
`)
		k.Name, h.Name, h.Entry = "k", "helper", false
		kc, err := EncodeFunc(k, arch)
		if err != nil {
			t.Fatal(err)
		}
		hc, err := EncodeFunc(h, arch)
		if err != nil {
			t.Fatal(err)
		}
		cubin, err := WriteCubin(arch, []CubinFunc{
			{Name: "k", Entry: true, Code: kc, Regs: 8, Params: []CubinParam{{0, 8}}, ReqNtid: [3]int{64, 1, 1}, Barriers: 1},
			{Name: "helper", Code: hc, Regs: 5},
		}, []CubinGlobal{
			{Name: "gv", Size: 16, Align: 4, AddrSlot: 0},
			{Name: "cv", Const: true, Size: 8, Align: 4, Init: []byte{7, 0, 0, 0, 9, 0, 0, 0}},
		})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "k.cubin")
		if err := os.WriteFile(path, cubin, 0o644); err != nil {
			t.Fatal(err)
		}
		nvdisasm := nvtools.Require(t, nvtools.Nvdisasm)
		out, err := exec.Command(nvdisasm, "-c", path).CombinedOutput()
		if err != nil {
			t.Fatalf("sm_%d nvdisasm: %v\n%s", arch, err, out)
		}
		for _, want := range []string{"CALL.REL.NOINC `($k$helper)", "$k$helper:", "/*0080*/                   MOV R4, 0x1",
			"/*0030*/                   MOV R20, 0x60 ;", "/*0090*/                   RET.REL.NODEC R20 `(k) ;"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("sm_%d: nvdisasm does not print %q:\n%s", arch, want, out)
			}
		}
		cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
		out, err = exec.Command(cuobjdump, "-elf", path).CombinedOutput()
		if err != nil {
			t.Fatalf("cuobjdump -elf: %v\n%s", err, out)
		}
		for _, want := range []string{
			".nv.global", ".nv.constant4", ".nv.constant3", "gv    R_CUDA_64", "$k$helper", "toolkit=",
			"EIATTR_REQNTID", "0x40 0x1 0x1", "EIATTR_NUM_BARRIERS", "function: $k$helper(",
			"0x00000007 0x00000009",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("sm_%d: cuobjdump -elf does not list %q:\n%s", arch, want, out)
			}
		}
	}
}

// TestCubinFuncAddr: a function pointer is the callee's offset from the
// kernel's start, which the writer fills into the MOV (RelocFuncAddr), as
// ptxas 13.0 does ("UMOV UR4, 0x100", no relocation); the callee whose
// address is taken is laid out after the kernel although no direct CALL
// names it, and CALL.REL.NOINC R6's field points at the kernel's start.
func TestCubinFuncAddr(t *testing.T) {
	for _, arch := range []int{80, 90} {
		k := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R6 = `+"`helper`"+` ;
	#2 [B------:R-:W-:-:S02] MOV R20 = `+"`.ret`"+` ;
	#3 [B------:R-:W-:-:S02] MOV R21 = RZ ;
	#4 [B------:R-:W-:Y:S05] CALL.REL.NOINC R6 ;
	#5 [B------:R-:W-:-:S05] EXIT ;
`)
		h := parseFunc(t, `BB0:
	#1 [B------:R-:W-:-:S02] MOV R4 = 0x1 ;
	#2 [B------:R-:W-:-:S05] RET.REL.NODEC R20.64 ;
`)
		k.Name, h.Name, h.Entry = "k", "helper", false
		kc, err := EncodeFunc(k, arch)
		if err != nil {
			t.Fatal(err)
		}
		if len(kc.Relocs) < 1 || kc.Relocs[0] != (Reloc{Offset: 0, Kind: RelocFuncAddr, Sym: "helper"}) {
			t.Errorf("sm_%d: the function-address MOV's relocation: %+v", arch, kc.Relocs)
		}
		hc, err := EncodeFunc(h, arch)
		if err != nil {
			t.Fatal(err)
		}
		cubin, err := WriteCubin(arch, []CubinFunc{
			{Name: "k", Entry: true, Code: kc, Regs: 22, Params: []CubinParam{{0, 8}}},
			{Name: "helper", Code: hc, Regs: 5},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "k.cubin")
		if err := os.WriteFile(path, cubin, 0o644); err != nil {
			t.Fatal(err)
		}
		nvdisasm := nvtools.Require(t, nvtools.Nvdisasm)
		out, err := exec.Command(nvdisasm, "-c", path).CombinedOutput()
		if err != nil {
			t.Fatalf("sm_%d nvdisasm: %v\n%s", arch, err, out)
		}
		for _, want := range []string{"/*0000*/                   MOV R6, 0x50 ;", "$k$helper:", "/*0050*/                   MOV R4, 0x1",
			"/*0010*/                   MOV R20, 0x40 ;", "/*0030*/                   CALL.REL.NOINC R6 `(k) ;"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("sm_%d: nvdisasm does not print %q:\n%s", arch, want, out)
			}
		}
	}
}

// TestCubinKernelAddr: the address of a kernel has no place in another
// kernel's code (ptxas 13.0 accepts "mov.u64 %rd, kernel"; orilab does
// not model what it loads), so the writer refuses it by name.
func TestCubinKernelAddr(t *testing.T) {
	k := parseFunc(t, "BB0:\n\t#1 MOV R6 = `j` ;\n\t#2 EXIT ;\n")
	j := parseFunc(t, "BB0:\n\t#1 EXIT ;\n")
	k.Name, j.Name = "k", "j"
	kc, err := EncodeFunc(k, 80)
	if err != nil {
		t.Fatal(err)
	}
	jc, err := EncodeFunc(j, 80)
	if err != nil {
		t.Fatal(err)
	}
	_, err = WriteCubin(80, []CubinFunc{{Name: "k", Entry: true, Code: kc, Regs: 8}, {Name: "j", Entry: true, Code: jc, Regs: 8}}, nil)
	if want := "sass: k takes the address of the kernel j, which orilab cannot place in its code"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestCubinWithoutKernel: a module with no .entry still gets a cubin, as
// ptxas 13.0.88 (whole-program mode) writes one: no code or banks (its
// .funcs are unreachable), .nv.info holding only the attribute 0x5f, 0,
// the cuinfo note at section 6, PHDR and its LOAD (and sm_90's empty RW
// LOAD); cuobjdump reads the note's toolkit version and nvdisasm the
// file.
func TestCubinWithoutKernel(t *testing.T) {
	for _, c := range []struct {
		arch  int
		secs  string
		loads int
	}{
		{75, ",.shstrtab,.strtab,.symtab,.nv.info,.nv.callgraph,.note.nv.cuinfo,.nv.rel.action", 2},
		{90, ",.shstrtab,.strtab,.symtab,.nv.info,.nv.compat,.note.nv.cuinfo,.nv.callgraph,.nv.shared.reserved.0", 3},
	} {
		cubin, err := WriteCubin(c.arch, []CubinFunc{{Name: "foobar"}}, nil)
		if err != nil {
			t.Fatalf("sm_%d: %v", c.arch, err)
		}
		f, err := elf.NewFile(bytes.NewReader(cubin))
		if err != nil {
			t.Fatalf("sm_%d: %v", c.arch, err)
		}
		var names []string
		for _, s := range f.Sections {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, ","); got != c.secs {
			t.Errorf("sm_%d: sections %s, want %s", c.arch, got, c.secs)
		}
		if info, err := f.Section(".nv.info").Data(); err != nil || !bytes.Equal(info, []byte{3, 0x5f, 0, 0}) {
			t.Errorf("sm_%d: .nv.info % x (%v), want 03 5f 00 00", c.arch, info, err)
		}
		if len(f.Progs) != c.loads {
			t.Errorf("sm_%d: %d program headers, want %d", c.arch, len(f.Progs), c.loads)
		}
		path := filepath.Join(t.TempDir(), "nokernel.cubin")
		if err := os.WriteFile(path, cubin, 0o644); err != nil {
			t.Fatal(err)
		}
		cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
		out, err := exec.Command(cuobjdump, "-elf", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "toolkit=13.0") {
			t.Errorf("sm_%d: cuobjdump -elf: %v\n%s", c.arch, err, out)
		}
		nvdisasm := nvtools.Require(t, nvtools.Nvdisasm)
		if out, err := exec.Command(nvdisasm, path).CombinedOutput(); err != nil {
			t.Errorf("sm_%d: nvdisasm: %v\n%s", c.arch, err, out)
		}
	}
}
