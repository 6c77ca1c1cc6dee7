package pipeline

// The cubins the pipeline writes (FormatCodeList), read by NVIDIA's
// tools: for every testdata kernel and a sample of the corpus (all of it
// with ORILAB_ENCODE_CORPUS=1), at -O0 and -O3 for sm_75 (-O3 only in
// the default run), sm_80 and sm_90.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/ori"
	"orilab/pipeline/sass"
)

// cubinInputs: testdata/kernels and every 4th corpus file by default
// (about 40 s on two cores; each cubin costs a cuobjdump and an nvdisasm
// run, so the rest of testdata, which TestNvdisasmEncoding covers, is
// left out), the whole corpus and all of testdata with
// ORILAB_ENCODE_CORPUS=1.
func cubinInputs(t *testing.T) []string {
	all := os.Getenv("ORILAB_ENCODE_CORPUS") != ""
	kernels := string(filepath.Separator) + filepath.Join("testdata", "kernels") + string(filepath.Separator)
	var out []string
	corpus := 0
	for _, f := range encodeInputs(t) {
		if strings.Contains(f, string(filepath.Separator)+"corpus"+string(filepath.Separator)) {
			corpus++
			if !all && corpus%4 != 1 {
				continue
			}
		} else if !all && !strings.Contains(f, kernels) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// cubinOf compiles file for arch at level; the session's cubin, or nil
// with the reason it has none.
func cubinOf(file string, arch, level int) (*Session, []byte, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	req := Request{Arch: arch, OptLevel: level}
	sess, err := req.StartFile(file, src, SessionControl{})
	if err != nil {
		return nil, nil, err
	}
	if err := sess.RunAll(); err != nil {
		return nil, nil, err
	}
	b := sess.Backend()
	switch {
	case b == nil:
		return sess, nil, fmt.Errorf("no back end ran")
	case b.EncodeErr != nil:
		return sess, nil, b.EncodeErr
	}
	return sess, b.Cubin, nil
}

// verboseLines returns, per kernel, the register count and cmem[0] bytes
// of the -v report (as orilab compile -v prints it).
func verboseLines(t *testing.T, sess *Session) map[string][2]int {
	m := sess.Module()
	us := sass.ModuleUsage(m, m.Arch)
	for i := range us {
		if st := sess.Backend().RAStats[us[i].Name]; st != nil {
			us[i].Regs = max(us[i].Regs, st.Regs)
		}
	}
	var b strings.Builder
	if err := sass.Resources(&b, m.Arch, sass.GlobalBytes(m), us); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int{}
	cur := ""
	for _, l := range strings.Split(b.String(), "\n") {
		if m := compilingRe.FindStringSubmatch(l); m != nil {
			cur = m[1]
		}
		if m := usedRe.FindStringSubmatch(l); m != nil && cur != "" {
			regs, _ := strconv.Atoi(m[1])
			cmem, _ := strconv.Atoi(m[2])
			out[cur] = [2]int{regs, cmem}
		}
	}
	return out
}

var (
	compilingRe = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	usedRe      = regexp.MustCompile(`Used (\d+) registers, .* (\d+) bytes cmem\[0\]`)
	regcountRe  = regexp.MustCompile(`function: ([^(]+)\(0x[0-9a-f]+\)\tregister count: (\d+)`)
	kparamRe    = regexp.MustCompile(`Ordinal : 0x([0-9a-f]+)\tOffset  : 0x([0-9a-f]+)\tSize    : 0x([0-9a-f]+)`)
	cbankSizeRe = regexp.MustCompile(`EIATTR_CBANK_PARAM_SIZE\n\tFormat:\tEIFMT_HVAL\n\tValue:\t0x([0-9a-f]+)`)
)

// TestCubinElf (acceptance 2): nvdisasm disassembles every cubin orilab
// writes, and cuobjdump -elf lists the kernel's sections and attributes:
// the register count equals orilab's -v line, the parameters
// (KPARAM_INFO) are the kernel's, and CBANK_PARAM_SIZE plus the parameter
// base is the -v line's cmem[0]. Kernels whose code the encoder refuses
// are counted, not failed.
func TestCubinElf(t *testing.T) {
	cuobjdump := nvtools.Require(t, nvtools.Cuobjdump)
	nvdisasm := nvtools.Require(t, nvtools.Nvdisasm)
	files := cubinInputs(t)
	dir := t.TempDir()
	all := os.Getenv("ORILAB_ENCODE_CORPUS") != ""
	for _, arch := range encodeArchs(t) {
		for _, level := range []int{0, 3} {
			if arch == 75 && level == 0 && !all && os.Getenv("ORILAB_ENCODE_ARCHS") == "" {
				// sm_75 shares sm_80's cubin layout; its -O0 cubins
				// are checked in the full run (TestNvdisasmEncoding
				// covers their words in the default one).
				continue
			}
			compiled, written, accepted := 0, 0, 0
			refused := map[string]int{}
			for _, file := range files {
				sess, cub, err := cubinOf(file, arch, level)
				if sess == nil {
					continue // not a kernel orilab compiles
				}
				compiled++
				if cub == nil {
					refused[refusalKind(err)]++
					continue
				}
				written++
				path := filepath.Join(dir, fmt.Sprintf("k%d.cubin", written))
				if err := os.WriteFile(path, cub, 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(nvdisasm, "-c", path).CombinedOutput(); err != nil {
					t.Errorf("%s sm_%d -O%d: nvdisasm: %v\n%s", filepath.Base(file), arch, level, err, out)
					continue
				}
				out, err := exec.Command(cuobjdump, "-elf", path).CombinedOutput()
				if err != nil {
					t.Errorf("%s sm_%d -O%d: cuobjdump -elf: %v\n%s", filepath.Base(file), arch, level, err, out)
					continue
				}
				if checkElf(t, fmt.Sprintf("%s sm_%d -O%d", filepath.Base(file), arch, level), string(out), sess, arch) {
					accepted++
				}
			}
			t.Logf("sm_%d -O%d: %d files compiled, %d cubins written, %d disassembled by nvdisasm and listed by cuobjdump -elf with the expected sections and attributes; no cubin (the encoder refuses an instruction):%s",
				arch, level, compiled, written, accepted, topCounts(refused, 8))
			if written == 0 {
				t.Errorf("sm_%d -O%d: no cubin written", arch, level)
			}
		}
	}
}

// refusalKind shortens an encoder refusal to its mnemonic and reason.
func refusalKind(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, " #"); i >= 0 {
		if j := strings.Index(msg[i+2:], " "); j >= 0 {
			msg = msg[i+2+j+1:]
		}
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		if k := strings.Index(msg, ":"); k >= 0 && k < i {
			msg = msg[:k] + ":" + msg[i+1:]
		}
	}
	return msg
}

// checkElf compares cuobjdump -elf's listing with the session's kernels.
func checkElf(t *testing.T, what, elf string, sess *Session, arch int) bool {
	ok := true
	fail := func(format string, args ...any) {
		ok = false
		t.Errorf(what+": "+format, args...)
	}
	v := verboseLines(t, sess)
	regs := map[string]int{}
	for _, m := range regcountRe.FindAllStringSubmatch(elf, -1) {
		regs[m[1]], _ = strconv.Atoi(m[2])
	}
	base := 0x160
	if arch >= 90 {
		base = 0x210
	}
	live := reachable(sess.Module())
	texHeaders := false
	for _, f := range sess.Module().Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				switch in.Op {
				case ori.OpTEX, ori.OpTLD, ori.OpTLD4, ori.OpTXQ, ori.OpSULD, ori.OpSUST:
					texHeaders = true
				}
			}
		}
	}
	for _, f := range sess.Module().Funcs {
		if !f.Entry || !live[f.Name] {
			continue
		}
		for _, sec := range []string{".text." + f.Name, ".nv.info." + f.Name, ".nv.constant0." + f.Name} {
			if !strings.Contains(elf, sec) {
				fail("no section %s", sec)
			}
		}
		if got, want := regs[f.Name], v[f.Name][0]; got != want {
			fail("%s: EIATTR_REGCOUNT %d, -v says %d registers", f.Name, got, want)
		}
		info := kernelInfo(elf, f.Name)
		var params []string
		for _, m := range kparamRe.FindAllStringSubmatch(info, -1) {
			params = append(params, fmt.Sprintf("%s@%s:%s", m[1], m[2], m[3]))
		}
		var want []string
		for i := len(f.Params) - 1; i >= 0; i-- {
			p := f.Params[i]
			want = append(want, fmt.Sprintf("%x@%x:%x", i, int(p.Offset)-base, p.Size))
		}
		if strings.Join(params, " ") != strings.Join(want, " ") {
			fail("%s: KPARAM_INFO %v, want %v", f.Name, params, want)
		}
		if m := cbankSizeRe.FindStringSubmatch(info); m == nil {
			// ptxas writes none for a kernel without parameters.
			if len(f.Params) > 0 {
				fail("%s: no EIATTR_CBANK_PARAM_SIZE", f.Name)
			}
		} else if len(f.Params) == 0 {
			fail("%s: EIATTR_CBANK_PARAM_SIZE for a kernel without parameters", f.Name)
		} else if n, _ := strconv.ParseInt(m[1], 16, 64); base+int(n) != v[f.Name][1] && !(texHeaders && base+int(n) < v[f.Name][1]) {
			// A module with textures or surfaces keeps their header
			// indices in cmem[0] after the parameters (ptxas's too:
			// tex_forms's .nv.constant0 is 0x190 bytes on sm_80, with
			// R_CUDA_TEX_HEADER_INDEX at 0x17c-0x18c), so -v's size
			// exceeds the parameters' end there.
			fail("%s: parameter base 0x%x + CBANK_PARAM_SIZE 0x%x, -v says %d bytes cmem[0]", f.Name, base, n, v[f.Name][1])
		}
		if hasExit(f) && !strings.Contains(info, "EIATTR_EXIT_INSTR_OFFSETS") {
			fail("%s: no EIATTR_EXIT_INSTR_OFFSETS", f.Name)
		}
		// The literal pool: .nv.constant2.NAME holds f.Literals, as
		// cuobjdump lists 32-bit words (low word first), with the
		// entries of jump tables replaced by their targets' offsets
		// (TestJumpTableCubin checks those against the layout).
		var want2 []string
		for _, v := range f.Literals {
			want2 = append(want2, fmt.Sprintf("0x%08x", uint32(v)), fmt.Sprintf("0x%08x", uint32(v>>32)))
		}
		if code, err := sass.EncodeFunc(f, arch); err == nil {
			for _, jt := range code.JumpTables {
				for i, tgt := range jt.Targets {
					if k := jt.Base/4 + i; k < len(want2) {
						want2[k] = fmt.Sprintf("0x%08x", tgt)
					}
				}
			}
		}
		if got := constBankWords(elf, ".nv.constant2."+f.Name); strings.Join(got, " ") != strings.Join(want2, " ") {
			fail("%s: .nv.constant2 holds %v, want the literal pool %v", f.Name, got, want2)
		}
	}
	return ok
}

// constBankWords returns the words cuobjdump -elf lists for a constant
// bank section (nil when the listing has no such section).
func constBankWords(elf, sec string) []string {
	i := strings.Index(elf, "\n"+sec+"\n")
	if i < 0 {
		return nil
	}
	rest := elf[i+len(sec)+2:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j]
	}
	return strings.Fields(rest)
}

// kernelInfo is the part of cuobjdump's listing for .nv.info.NAME.
func kernelInfo(elf, name string) string {
	i := strings.Index(elf, "\n.nv.info."+name+"\n")
	if i < 0 {
		return ""
	}
	rest := elf[i+1:]
	if j := strings.Index(rest[1:], "\n\n\n"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

func hasExit(f *ori.Func) bool {
	for _, b := range f.Blocks {
		for _, in := range b.Insts {
			if in.Op == ori.OpEXIT {
				return true
			}
		}
	}
	return false
}
