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
	"strconv"
	"strings"

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
		m := instLine.FindStringSubmatch(line)
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

var instLine = regexp.MustCompile(`^\s*/\*[0-9a-f]{4,}\*/\s+(.*?;)`)

// InstTexts returns orilab's text of every instruction of f as Text
// prints it, the function placed at address base, with branch targets
// written as absolute addresses (nvdisasm's raw-binary form).
func InstTexts(f *ori.Func, base int) ([]string, error) {
	labels := map[int32]string{}
	pc := base
	for _, b := range f.Blocks {
		labels[b.ID] = fmt.Sprintf("0x%x", pc)
		pc += 16 * len(b.Insts)
	}
	var out []string
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			t, err := instText(in, labels)
			if err != nil {
				return nil, fmt.Errorf("sass: %s BB%d #%d: %v", f.Name, b.ID, in.ID, err)
			}
			out = append(out, guardText(in)+t)
		}
	}
	return out, nil
}

// InstText returns one instruction's text with its guard, branch targets
// printed as BB<id> (for messages and the round-trip test).
func InstText(in *ori.Inst) (string, error) {
	labels := map[int32]string{}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdBlock {
			labels[o.Block] = fmt.Sprintf("BB%d", o.Block)
		}
	}
	t, err := instText(in, labels)
	if err != nil {
		return "", err
	}
	return guardText(in) + t, nil
}

// InstTextRaw prints an instruction decoded with DecodeContext.Raw:
// branch targets as the absolute addresses their block IDs hold.
func InstTextRaw(in *ori.Inst) (string, error) {
	labels := map[int32]string{}
	for _, o := range in.Srcs {
		if o.Kind == ori.OpdBlock {
			labels[o.Block] = fmt.Sprintf("0x%x", o.Block)
		}
	}
	t, err := instText(in, labels)
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

var (
	spaces      = regexp.MustCompile(`\s+`)
	labelRef    = regexp.MustCompile("`\\((0x[0-9a-f]+)\\)")
	callTgt     = regexp.MustCompile(`^((?:@!?P[0-7T] )?CALL\.REL\.NOINC) \S+ ;$`)
	descURZ     = regexp.MustCompile(`desc\[URZ\]`)
	descOperand = regexp.MustCompile(`desc\[UR[0-9]+\]`)
	spaceSemi   = regexp.MustCompile(` ?([;,])`)
)

// Normalize maps an instruction text from either side to the form the
// comparison uses:
//   - runs of spaces become one, and no space precedes "," or ";" (the
//     guard column, and nvdisasm's "BRA 0x10;" against "EXIT ;");
//   - a branch target `(0x50) becomes 0x50 (nvdisasm's raw form);
//   - a relative call's target becomes `(CALLEE): orilab encodes it as a
//     relocation whose field is 0 until the cubin is linked;
//   - desc[URZ]: a word whose descriptor field holds URZ names no
//     descriptor (orilab's encoder never writes one), and nvdisasm's
//     desc[URZ] is dropped.
func Normalize(s string) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	s = labelRef.ReplaceAllString(s, "$1")
	s = descURZ.ReplaceAllString(s, "")
	s = spaceSemi.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, ",", ", ")
	s = strings.TrimSuffix(s, ";") + " ;"
	s = spaces.ReplaceAllString(s, " ")
	if m := callTgt.FindStringSubmatch(s); m != nil {
		s = m[1] + " `(CALLEE) ;"
	}
	return s
}

// printerConventions rewrites orilab's SASS text where its printer and
// nvdisasm 13.5 differ only in how they spell the same word. Each line
// is a difference of orilab's printer (text.go) that the nvdisasm test
// in package pipeline counts as a mismatch, kept here as a list of what
// the printer has to learn; the decoder checks apply them to decoded
// text, so that they measure the encoding tables alone.
var printerConventions = []struct {
	re  *regexp.Regexp
	to  string
	why string
}{
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?I2F)\.F32((?:\.[US]32)?)\.RN `), "$1$2 ", "I2F: .F32 and .RN are defaults"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?I2F)\.F32`), "$1", "I2F: .F32 is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?I2F(?:\.[A-Z0-9]+)*)\.S32`), "$1", "I2F: .S32 is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?F2I(?:\.[US](?:32|64))?)\.F32`), "$1", "F2I: .F32 is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?F2I)\.S32`), "$1", "F2I: .S32 is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?F2F\.F32\.F64(?:\.FTZ)?)\.RN `), "$1 ", "F2F: .RN is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?ATOMS?G?\.(?:E\.)?[A-Z]+)\.U32`), "$1", "ATOM: .U32 is the default"},
	{regexp.MustCompile(` \[0x0\]`), " [RZ]", "an absolute address 0 is [RZ]"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?FCHK)\.DIVIDE`), "$1", "FCHK: .DIVIDE is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?(?:LD|ST|LDG|STG)\.E)((?:\.STRONG\.[A-Z]+|\.CONSTANT))(\.(?:U8|S8|U16|S16|64|128))`), "$1$3$2", "loads and stores: the size before the ordering"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?MEMBAR)\.(CTA|SM|GPU|SYS) `), "$1.SC.$2 ", "MEMBAR: nvdisasm names .SC"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?F2F)(\.F[0-9]+\.F[0-9]+)\.FTZ`), "$1.FTZ$2", "F2F: .FTZ before the types"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?LDC(?:\.[A-Z0-9]+)? [^,]+, c\[0x[0-9a-f]+\]\[)0x0\]`), "${1}RZ]", "LDC: offset 0 without an index prints the index RZ"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?FRND(?:\.F64)?(?:\.FTZ)?)\.RN `), "$1 ", "FRND: .RN is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?FRND(?:\.F64)?(?:\.FTZ)?)\.RM `), "$1.FLOOR ", "FRND: .RM is .FLOOR"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?FRND(?:\.F64)?(?:\.FTZ)?)\.RP `), "$1.CEIL ", "FRND: .RP is .CEIL"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?FRND(?:\.F64)?(?:\.FTZ)?)\.RZ `), "$1.TRUNC ", "FRND: .RZ is .TRUNC"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?I2F\.F64(?:\.[SU](?:32|64))?)\.RN `), "$1 ", "I2F: .RN is the default"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?ATOM\.E\.CAS.* \[R[0-9]+)\.64`), "$1", "ATOM.E.CAS prints its 64-bit address without .64"},
	{regexp.MustCompile(`^((?:@!?P[0-6T] )?VOTE\.[A-Z]+) RZ,`), "$1", "VOTE: an RZ result is not printed"},
}

// NvdisasmStyle applies printerConventions and nvdisasm's choices that
// depend on the instruction: unsigned immediates outside IADD3 and IMAD,
// IMAD.SHL for a multiplier that is a power of two with C = RZ, and
// WARPSYNC.ALL on sm_90.
func NvdisasmStyle(s string, arch int, yield bool) string {
	if yield {
		// A yielding instruction's reuse flags have no effect and
		// nvdisasm does not print them (measured over every stall and
		// yield with -b SM80).
		s = strings.ReplaceAll(s, ".reuse", "")
	}
	// nvdisasm writes large values with 21 significant digits in
	// exponent form (8.50705917302346158658e+37); orilab's printer
	// writes 20 (and integers in full).
	s = bigFloat.ReplaceAllStringFunc(s, func(m string) string {
		f, _ := strconv.ParseFloat(strings.TrimSpace(m), 64)
		return " " + strconv.FormatFloat(f, 'e', 20, 64)
	})
	s = posExpFloat.ReplaceAllStringFunc(s, func(m string) string {
		f, _ := strconv.ParseFloat(strings.TrimSpace(m), 64)
		return " " + strconv.FormatFloat(f, 'e', 20, 64)
	})
	for _, c := range printerConventions {
		s = c.re.ReplaceAllString(s, c.to)
	}
	if m := imadPow2.FindStringSubmatch(s); m != nil {
		s = m[1] + "IMAD.SHL" + m[2]
	}
	// nvdisasm's other IMAD aliases: a move (A and B RZ), an add (B 0x1).
	s = imadMov.ReplaceAllString(s, "${1}IMAD.MOV$2$3")
	s = imadIAdd.ReplaceAllString(s, "${1}IMAD.IADD$2")
	if !signedImm.MatchString(s) {
		s = negImm.ReplaceAllStringFunc(s, func(m string) string {
			var v uint64
			fmt.Sscanf(strings.TrimPrefix(m, " -0x"), "%x", &v)
			return fmt.Sprintf(" 0x%x", uint32(-int64(v)))
		})
	}
	if arch >= 90 {
		s = strings.Replace(s, "WARPSYNC 0xffffffff ", "WARPSYNC.ALL ", 1)
	} else {
		// The memory descriptor is in the word before sm_90 too (ptxas
		// writes UR4 there), but nvdisasm prints it only from sm_90.
		s = descOperand.ReplaceAllString(s, "")
	}
	return s
}

var (
	imadPow2    = regexp.MustCompile(`^((?:@!?P[0-6T] )?)IMAD((?:\.U32)? [^,]+, [^,]+, 0x(?:1|2|4|8)0*, RZ ;)$`)
	negImm      = regexp.MustCompile(` -0x[0-9a-f]+`)
	imadMov     = regexp.MustCompile(`^((?:@!?P[0-6T] )?)IMAD((?:\.U32)? [^,]+, RZ, RZ, )([^U])`)
	imadIAdd    = regexp.MustCompile(`^((?:@!?P[0-6T] )?)IMAD((?:\.U32)? [^,]+, [^,]+, 0x1, )`)
	signedImm   = regexp.MustCompile(`^(?:@!?P[0-6T] )?U?(?:IADD3|IMAD|ISETP|IMNMX)`)
	bigFloat    = regexp.MustCompile(` [0-9]{17,}\b`)
	posExpFloat = regexp.MustCompile(` [0-9]\.[0-9]+e\+[0-9]+`)
)
