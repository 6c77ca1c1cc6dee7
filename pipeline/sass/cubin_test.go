package sass

import (
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
		Params: []CubinParam{{0, 8}, {8, 8}, {16, 4}}}})
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
		if m := instLine.FindStringSubmatch(l); m != nil {
			got = append(got, Normalize(m[1]))
		}
	}
	want, err := InstTexts(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("nvdisasm printed %d instructions, orilab has %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		// nvdisasm prints the memory descriptor only from sm_90.
		w := descOperand.ReplaceAllString(Normalize(want[i]), "")
		// In a cubin nvdisasm names branch targets by label.
		if strings.Contains(w, "BRA") {
			continue
		}
		if got[i] != w {
			t.Errorf("/*%04x*/ nvdisasm %q, orilab %q", 16*i, got[i], w)
		}
	}
}
