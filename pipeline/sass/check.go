package sass

// Checking encodings against NVIDIA's decoder: nvdisasm disassembles a
// raw instruction binary (-b SMxx), and both listings are compared after
// a normalization the tests pin (TestNormalize).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"orilab/internal/atomicfile"
	"orilab/pipeline/ori"
)

// NvdisasmRaw disassembles code (instructions of SM arch, the first at
// address base) with the nvdisasm binary tool, and returns one text per
// instruction in address order, from the mnemonic (or guard) to ";".
func NvdisasmRaw(tool string, arch int, code []byte, base int) ([]string, error) {
	dir, err := os.MkdirTemp("", "orilab-nvdisasm")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "code.bin")
	if err := atomicfile.Write(bin, code); err != nil {
		return nil, err
	}
	cmd := exec.Command(tool, "-b", fmt.Sprintf("SM%d", arch), "-base", fmt.Sprintf("0x%x", base), bin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("nvdisasm -b SM%d: %v: %s", arch, err, strings.TrimSpace(stderr.String()))
	}
	var texts []string
	for _, line := range strings.Split(out.String(), "\n") {
		m := checkRE().instLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		texts = append(texts, m[1])
	}
	if len(texts) != len(code)/16 {
		return nil, fmt.Errorf("nvdisasm -b SM%d printed %d instructions for %d words", arch, len(texts), len(code)/16)
	}
	return texts, nil
}

// InstTexts returns orilab's text of every instruction of f as Text
// prints it for SM arch, the function placed at address base, with
// branch targets written as absolute addresses (nvdisasm's raw-binary
// form).
func InstTexts(f *ori.Func, arch, base int) ([]string, error) {
	return LinkedInstTexts(f, arch, base, nil)
}

// LinkedInstTexts is InstTexts with the function addresses f loads
// (ori.FuncAddrOf) resolved to their offsets in starts, as the cubin
// writer resolves them (RelocFuncAddr).
func LinkedInstTexts(f *ori.Func, arch, base int, starts map[string]int) ([]string, error) {
	labels := map[int32]string{}
	pc := base
	for _, b := range f.Blocks {
		labels[b.ID] = fmt.Sprintf("0x%x", pc)
		pc += 16 * len(b.Insts)
	}
	var out []string
	rp := ori.ReturnPoints(f, base)
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			in, _ := ResolveReturnPoint(in, rp)
			in, _ = ResolveFuncAddr(in, starts)
			t, err := instText(in, labels, arch)
			if err != nil {
				return nil, fmt.Errorf("sass: %s BB%d #%d: %v", f.Name, b.ID, in.ID, err)
			}
			out = append(out, guardText(in)+t)
		}
	}
	return out, nil
}

// InstText returns one instruction's text with its guard, branch targets
// printed as BB<id> (for messages and the round-trip test), in the
// spelling shared by every target (no sm_90 aliases).
func InstText(in *ori.Inst) (string, error) {
	labels := map[int32]string{}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdBlock {
			labels[o.Block] = fmt.Sprintf("BB%d", o.Block)
		}
	}
	t, err := instText(in, labels, 0)
	if err != nil {
		return "", err
	}
	return guardText(in) + t, nil
}

// InstTextRaw prints an instruction of SM arch decoded with
// DecodeContext.Raw: branch targets as the absolute addresses their
// block IDs hold.
func InstTextRaw(in *ori.Inst, arch int) (string, error) {
	labels := map[int32]string{}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdBlock {
			labels[o.Block] = fmt.Sprintf("0x%x", o.Block)
		}
	}
	t, err := instText(in, labels, arch)
	if err != nil {
		return "", err
	}
	return guardText(in) + t, nil
}

func guardText(in *ori.Inst) string {
	if !in.Guarded() {
		return ""
	}
	g := "@"
	if in.GuardNot {
		g += "!"
	}
	return g + regName(in.Guard, false) + " "
}

// checkRE returns the expressions of NvdisasmRaw and Normalize,
// compiled on first use: only the checks against nvdisasm use them, and
// compiling them at start-up cost every orilab process about 0.1 ms.
var checkRE = sync.OnceValue(func() *checkExprs {
	return &checkExprs{
		instLine:  regexp.MustCompile(`^\s*/\*[0-9a-f]{4,}\*/\s+(.*?;)`),
		spaces:    regexp.MustCompile(`\s+`),
		labelRef:  regexp.MustCompile("`\\((0x[0-9a-f]+)\\)"),
		callTgt:   regexp.MustCompile(`^((?:@!?P[0-7T] )?CALL\.REL\.NOINC) \S+ ;$`),
		retTgt:    regexp.MustCompile(`^((?:@!?P[0-7T] )?(?:RET\.REL\.NODEC|BRX) R\d+) \S+ ;$`),
		descURZ:   regexp.MustCompile(`desc\[URZ\]`),
		brxList:   regexp.MustCompile(`\s*\(\*"BRANCH_TARGETS[^"]*"\*\)`),
		spaceSemi: regexp.MustCompile(` ?([;,])`),
		bankSpace: regexp.MustCompile(`(c\[0x[0-9a-f]+\]) \[`),
	}
})

type checkExprs struct {
	instLine, spaces, labelRef, callTgt, retTgt, descURZ, brxList, spaceSemi, bankSpace *regexp.Regexp
}

// Normalize maps an instruction text from either side to the form the
// comparison uses:
//   - runs of spaces become one, and no space precedes "," or ";" (the
//     guard column, and nvdisasm's "BRA 0x10;" against "EXIT ;"), nor
//     the offset of a constant (nvdisasm's HFMA2 on sm_86 and sm_89
//     prints c[0x0] [0x170]);
//   - a branch target `(0x50) becomes 0x50 (nvdisasm's raw form);
//   - a relative call's target becomes `(CALLEE): orilab encodes it as a
//     relocation whose field is 0 until the cubin is linked;
//   - a return's target, and an indirect branch's (BRX Ra), becomes
//     `(KERNEL): the start of the code, which nvdisasm names in a cubin
//     and prints as 0x0 in a listing that starts there (BRX: as the
//     field, -0x90, and in a cubin the targets of
//     EIATTR_INDIRECT_BRANCH_TARGETS after it, (*"BRANCH_TARGETS
//     .L_x_4,.L_x_5"*), which are dropped) (the decoder checks that the
//     field points there);
//   - desc[URZ]: a word whose descriptor field holds URZ names no
//     descriptor (orilab's encoder never writes one), and nvdisasm's
//     desc[URZ] is dropped.
func Normalize(s string) string {
	re := checkRE()
	s = re.brxList.ReplaceAllString(s, "")
	s = strings.TrimSpace(re.spaces.ReplaceAllString(s, " "))
	s = re.bankSpace.ReplaceAllString(s, "$1[")
	s = re.labelRef.ReplaceAllString(s, "$1")
	s = re.descURZ.ReplaceAllString(s, "")
	s = re.spaceSemi.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, ",", ", ")
	s = strings.TrimSuffix(s, ";") + " ;"
	s = re.spaces.ReplaceAllString(s, " ")
	if m := re.callTgt.FindStringSubmatch(s); m != nil {
		s = m[1] + " `(CALLEE) ;"
	}
	if m := re.retTgt.FindStringSubmatch(s); m != nil {
		s = m[1] + " `(KERNEL) ;"
	}
	return s
}
