package sass

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// TestCubinTexRefs reads the ELF of a kernel that names a .texref and a
// .surfref (and a module .texref it does not use): each is a global
// symbol of type STT_CUDA_TEXTURE (10) or STT_CUDA_SURFACE (12) in no
// section and without storage; the kernel's bank-0 words get
// R_CUDA_TEX_HEADER_INDEX (6) and R_CUDA_SURF_HEADER_INDEX (52)
// relocations, highest offset first (REL below sm_90, RELA from sm_90);
// bank 0 reaches past the words; .nv.info.k names bank 0 as the
// bindless texture and surface bank; sm_90's .nv.compat says ISA class
// 2. All as ptxas 13.0 writes them (TestCubinMetaMatchesPtxas in package
// pipeline compares with ptxas itself).
func TestCubinTexRefs(t *testing.T) {
	for _, arch := range []int{80, 90} {
		f := parseFunc(t, "BB0:\n\t#1 EXIT ;\n")
		code, err := EncodeFunc(f, arch)
		if err != nil {
			t.Fatal(err)
		}
		base := int(paramBase(arch))
		k := CubinFunc{Name: "k", Entry: true, Code: code, Regs: 8, Params: []CubinParam{{0, 8}}, Textures: true,
			TexRefs: []CubinTexRef{{Name: "tA", Offset: base + 8}, {Name: "sB", Offset: base + 12}}}
		cub, err := WriteCubin(arch, []CubinFunc{k}, []CubinGlobal{{Name: "tA", Ref: RefTexture}, {Name: "sB", Ref: RefSurface}, {Name: "tU", Ref: RefTexture}})
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.NewFile(bytes.NewReader(cub))
		if err != nil {
			t.Fatal(err)
		}
		syms, err := ef.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		index := map[string]int{}
		got := map[string]string{}
		for i, s := range syms {
			index[s.Name] = i + 1
			got[s.Name] = fmt.Sprintf("type %d bind %d section %d size %d", elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info), s.Section, s.Size)
		}
		for name, want := range map[string]string{
			"tA": "type 10 bind 1 section 0 size 0",
			"sB": "type 12 bind 1 section 0 size 0",
			"tU": "type 10 bind 1 section 0 size 0",
		} {
			if got[name] != want {
				t.Errorf("sm_%d: symbol %s: %q, want %q", arch, name, got[name], want)
			}
		}
		if ef.Section(".nv.global") != nil || ef.Section(".nv.constant4") != nil {
			t.Errorf("sm_%d: texture references got storage", arch)
		}
		relName, es := ".rel.nv.constant0.k", 16
		if arch >= 90 {
			relName, es = ".rela.nv.constant0.k", 24
		}
		rs := ef.Section(relName)
		if rs == nil {
			t.Fatalf("sm_%d: no %s", arch, relName)
		}
		data, _ := rs.Data()
		var rels []string
		for i := 0; i+es <= len(data); i += es {
			info := binary.LittleEndian.Uint64(data[i+8:])
			rels = append(rels, fmt.Sprintf("0x%x sym %d type %d", binary.LittleEndian.Uint64(data[i:]), info>>32, uint32(info)))
		}
		want := []string{
			fmt.Sprintf("0x%x sym %d type 52", base+12, index["sB"]),
			fmt.Sprintf("0x%x sym %d type 6", base+8, index["tA"]),
		}
		if strings.Join(rels, "; ") != strings.Join(want, "; ") {
			t.Errorf("sm_%d: %s = %v, want %v", arch, relName, rels, want)
		}
		if c0 := ef.Section(".nv.constant0.k"); c0 == nil || int(c0.Size) != base+16 {
			t.Errorf("sm_%d: .nv.constant0.k is not 0x%x bytes: %+v", arch, base+16, c0)
		}
		info, _ := ef.Section(".nv.info.k").Data()
		for _, attr := range [][]byte{{eifmtBVAL, eiattrBindlessTex, 0, 0}, {eifmtBVAL, eiattrBindlessSurf, 0, 0}} {
			if !bytes.Contains(info, attr) {
				t.Errorf("sm_%d: .nv.info.k lacks % x", arch, attr)
			}
		}
		if arch >= 90 {
			if c, _ := ef.Section(".nv.compat").Data(); len(c) < 7 || c[6] != 2 {
				t.Errorf("sm_%d: .nv.compat's ISA class is not 2: % x", arch, c)
			}
		}
	}
	// A kernel word naming a reference the module does not declare is
	// refused by name.
	f := parseFunc(t, "BB0:\n\t#1 EXIT ;\n")
	code, err := EncodeFunc(f, 80)
	if err != nil {
		t.Fatal(err)
	}
	_, err = WriteCubin(80, []CubinFunc{{Name: "k", Entry: true, Code: code, Regs: 8, TexRefs: []CubinTexRef{{Name: "tZ", Offset: 0x160}}}}, nil)
	if want := "sass: k reads the texture or surface tZ, which the module does not declare"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestCubinInfoShapes: the tables ptxas 13.0 writes on every cubin
// (.nv.callgraph with its four entries, .nv.rel.action below sm_90, the
// cuinfo note at section index 6, where cuobjdump 13.5 reads it) and the
// two shapes of .nv.info: frame size and minimum stack size, or, for a
// kernel that queries a texture object, EIATTR_MAX_STACK_SIZE first and
// no .nv.callgraph. EIATTR_CRS_STACK_SIZE follows Reconverges.
func TestCubinInfoShapes(t *testing.T) {
	for _, arch := range []int{80, 90} {
		for _, query := range []bool{false, true} {
			f := parseFunc(t, "BB0:\n\t#1 EXIT ;\n")
			code, err := EncodeFunc(f, arch)
			if err != nil {
				t.Fatal(err)
			}
			cub, err := WriteCubin(arch, []CubinFunc{{Name: "k", Entry: true, Code: code, Regs: 8, Frame: 16, BindlessQuery: query, Reconverges: !query}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ef, err := elf.NewFile(bytes.NewReader(cub))
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("sm_%d query=%v", arch, query)
			if len(ef.Sections) <= 6 || ef.Sections[6].Name != ".note.nv.cuinfo" {
				t.Errorf("%s: section 6 is not the cuinfo note", what)
			}
			cg := ef.Section(".nv.callgraph")
			if query != (cg == nil) {
				t.Errorf("%s: .nv.callgraph %v", what, cg)
			} else if cg != nil {
				d, _ := cg.Data()
				if want := u32(0, 0xffffffff, 0, 0xfffffffe, 0, 0xfffffffd, 0, 0xfffffffc); !bytes.Equal(d, want) {
					t.Errorf("%s: .nv.callgraph % x", what, d)
				}
			}
			if (arch < 90) != (ef.Section(".nv.rel.action") != nil) {
				t.Errorf("%s: .nv.rel.action present: %v", what, ef.Section(".nv.rel.action") != nil)
			}
			info, _ := ef.Section(".nv.info").Data()
			var kinds []byte
			for i := 0; i+4 <= len(info); i += 4 + int(binary.LittleEndian.Uint16(info[i+2:])) {
				kinds = append(kinds, info[i+1])
			}
			want := []byte{eiattrRegCount, eiattrFrameSize, eiattrMinStackSize}
			if query {
				want = []byte{eiattrRegCount, eiattrMaxStackSize, eiattrMinStackSize, eiattrFrameSize}
			}
			if !bytes.Equal(kinds, want) {
				t.Errorf("%s: .nv.info kinds % x, want % x", what, kinds, want)
			}
			kinfo, _ := ef.Section(".nv.info.k").Data()
			if crs := bytes.Contains(kinfo, []byte{eifmtSVAL, eiattrCRSStackSize, 4, 0, 0, 0, 0, 0}); crs == query {
				t.Errorf("%s: EIATTR_CRS_STACK_SIZE written: %v", what, crs)
			}
		}
	}
}

// TestCubinMinStack: EIATTR_MIN_STACK_SIZE is the kernel's frame plus
// the deepest chain of callee frames (k 4 + max(a 16 + c 8, b 32) = 36),
// and a recursive function adds nothing (k 4 + r's 16 = 4), as ptxas
// 13.0 computes it.
func TestCubinMinStack(t *testing.T) {
	fn := func(name, body string, frame int) CubinFunc {
		f := parseFunc(t, body)
		f.Name = name
		code, err := EncodeFunc(f, 80)
		if err != nil {
			t.Fatal(err)
		}
		return CubinFunc{Name: name, Entry: name == "k", Code: code, Regs: 24, Frame: frame}
	}
	id := 0
	call := func(callee string) string {
		id += 3
		return fmt.Sprintf("\t#%d MOV R20 = `.ret` ;\n\t#%d MOV R21 = RZ ;\n\t#%d CALL.REL.NOINC `%s` ;\n", id, id+1, id+2, callee)
	}
	ret := "\t#99 RET.REL.NODEC R20.64 ;\n"
	minStack := func(funcs []CubinFunc) uint32 {
		cub, err := WriteCubin(80, funcs, nil)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := elf.NewFile(bytes.NewReader(cub))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := ef.Section(".nv.info").Data()
		for i := 0; i+4 <= len(info); i += 4 + int(binary.LittleEndian.Uint16(info[i+2:])) {
			if info[i+1] == eiattrMinStackSize {
				return binary.LittleEndian.Uint32(info[i+8:])
			}
		}
		t.Fatal("no EIATTR_MIN_STACK_SIZE")
		return 0
	}
	got := minStack([]CubinFunc{
		fn("k", "BB0:\n"+call("a")+call("b")+"\t#98 EXIT ;\n", 4),
		fn("a", "BB0:\n"+call("c")+ret, 16),
		fn("b", "BB0:\n"+ret, 32),
		fn("c", "BB0:\n"+ret, 8),
	})
	if got != 36 {
		t.Errorf("chain: min stack %d, want 36", got)
	}
	got = minStack([]CubinFunc{
		fn("k", "BB0:\n"+call("r")+"\t#98 EXIT ;\n", 4),
		fn("r", "BB0:\n"+call("r")+ret, 16),
	})
	if got != 4 {
		t.Errorf("recursion: min stack %d, want 4", got)
	}
}
