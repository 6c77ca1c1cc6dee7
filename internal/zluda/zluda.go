package zluda

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"orilab/pipeline/spec"
)

// Dir is the ZLUDA corpus folder inside the shared directory.
const Dir = "corpus/ZLUDA"

// Case is one runnable (or compile-only, or unrepresentable) ZLUDA test.
type Case struct {
	Name        string // the test name; TEST/32 for the .address_size 32 copy
	Test        string // the ZLUDA test name (= kernel name)
	Macro       string // test_ptx!, test_ptx_warp! or test_ptx_with_32!
	AddressSize int    // 64, or 32 for the .address_size 32 copy
	PTX         string // the module, relative to corpus/ZLUDA
	ExpectFile  string // the expectation, relative to corpus/ZLUDA; "" for compile-only cases
	Notes       []string
	// Spec is ready to run (or, with Spec.CompileOnly, to compile); nil when
	// Skip is set.
	Spec *spec.Spec
	Skip string // why the test cannot be represented as a spec
}

// expectFile is the format of expect/*.json.
type expectFile struct {
	Name       string   `json:"name"`
	Source     string   `json:"source"`
	PTX        string   `json:"ptx"`
	Kernel     string   `json:"kernel"`
	Launch     launch   `json:"launch"`
	Params     []string `json:"params"`
	Input      *buffer  `json:"input"`
	Output     *buffer  `json:"output"`
	OutputInit string   `json:"output_init"`
	Compare    string   `json:"compare"`
	PTX32      string   `json:"ptx_32bit_variant"`
	Notes      []string `json:"notes"`
}

type launch struct {
	Grid               []int `json:"grid"`
	Block              []int `json:"block"`
	DynamicSharedBytes int   `json:"dynamic_shared_bytes"`
}

type buffer struct {
	Type        string   `json:"type"`
	Count       int      `json:"count"`
	Values      []string `json:"values"`
	ElemBitsHex []string `json:"elem_bits_hex"`
	BytesHexLE  string   `json:"bytes_hex_le"`
}

type index struct {
	Source string `json:"source"`
	Tests  []struct {
		Name      string `json:"name"`
		Macro     string `json:"macro"`
		PTX       string `json:"ptx"`
		PTXExists bool   `json:"ptx_exists"`
		HasData   bool   `json:"has_data"`
		Expect    string `json:"expect"`
	} `json:"tests"`
}

// Rust element type names → spec element types.
var elemOf = map[string]string{
	"u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64",
	"i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64",
	"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64",
}

func decodeStrict(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// Load reads expect_index.json and every expect/*.json under
// sharedDir/corpus/ZLUDA and returns the cases in index order (expectation
// files the index does not list follow, by name). It fails only when the
// corpus files cannot be read or decoded; a test that cannot be expressed
// as a spec comes back with Skip set.
func Load(sharedDir string) ([]Case, error) {
	root := filepath.Join(sharedDir, Dir)
	var idx index
	if err := decodeStrict(filepath.Join(root, "expect_index.json"), &idx); err != nil {
		return nil, err
	}
	var cases []Case
	listed := map[string]bool{}
	for _, t := range idx.Tests {
		if !t.HasData {
			c := Case{Name: t.Name, Test: t.Name, Macro: t.Macro, AddressSize: 64, PTX: t.PTX}
			if !t.PTXExists {
				c.Skip = "no recorded data and no PTX in the corpus"
			} else {
				c.Spec, c.Skip = compileOnly(root, t.Name, t.PTX)
			}
			cases = append(cases, c)
			continue
		}
		listed[filepath.Clean(t.Expect)] = true
		cs, err := loadExpect(root, t.Expect, t.Macro)
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	files, err := filepath.Glob(filepath.Join(root, "expect", "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if listed[rel] {
			continue
		}
		cs, err := loadExpect(root, rel, "")
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	return cases, nil
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
var macroRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(macro (\S+)\)`) })

// loadExpect builds the case of one expectation file, plus its 32-bit
// copy when there is one.
func loadExpect(root, rel, macro string) ([]Case, error) {
	var x expectFile
	if err := decodeStrict(filepath.Join(root, rel), &x); err != nil {
		return nil, err
	}
	if macro == "" {
		if m := macroRE().FindStringSubmatch(x.Source); m != nil {
			macro = m[1]
		}
	}
	mk := func(name, ptx string, addr int) Case {
		c := Case{Name: name, Test: x.Name, Macro: macro, AddressSize: addr, PTX: ptx, ExpectFile: rel, Notes: x.Notes}
		c.Spec, c.Skip = build(root, name, ptx, &x, macro)
		return c
	}
	cases := []Case{mk(x.Name, x.PTX, 64)}
	if x.PTX32 != "" {
		cases = append(cases, mk(x.Name+"/32", x.PTX32, 32))
	}
	return cases, nil
}

// specDoc mirrors the spec file format for building specs in memory; they
// then go through spec.Parse, the same validation as files.
type specDoc struct {
	Name   string       `json:"name"`
	PTX    string       `json:"ptx"`
	Kernel string       `json:"kernel"`
	Launch *specLaunch  `json:"launch,omitempty"`
	Params []specParam  `json:"params,omitempty"`
	Expect []specExpect `json:"expect"`
}

type specLaunch struct {
	Grid               []int `json:"grid"`
	Block              []int `json:"block"`
	DynamicSharedBytes int   `json:"dynamic_shared_bytes"`
}

type specParam struct {
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`
	Elem      string  `json:"elem,omitempty"`
	Count     int     `json:"count,omitempty"`
	Init      string  `json:"init,omitempty"`
	InitHexLE *string `json:"init_hex_le,omitempty"`
	SameAs    string  `json:"same_as,omitempty"`
}

type specExpect struct {
	Param       string   `json:"param,omitempty"`
	Count       int      `json:"count,omitempty"`
	ValuesHex   []string `json:"values_hex,omitempty"`
	CompileOnly bool     `json:"compile_only,omitempty"`
}

func parse(root, name string, d specDoc) (*spec.Spec, string) {
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err.Error()
	}
	s, err := spec.Parse("zluda:"+name, data, root)
	if err != nil {
		return nil, err.Error()
	}
	return s, ""
}

func compileOnly(root, name, ptx string) (*spec.Spec, string) {
	src, err := os.ReadFile(filepath.Join(root, ptx))
	if err != nil {
		return nil, err.Error()
	}
	if _, ok := CountEntryParams(src, name); !ok {
		return nil, fmt.Sprintf("no .entry %s in %s", name, ptx)
	}
	return parse(root, name, specDoc{Name: name, PTX: ptx, Kernel: name,
		Expect: []specExpect{{CompileOnly: true}}})
}

// build converts one expectation into a spec, or says why it cannot.
func build(root, name, ptx string, x *expectFile, macro string) (*spec.Spec, string) {
	src, err := os.ReadFile(filepath.Join(root, ptx))
	if err != nil {
		return nil, err.Error()
	}
	nparams, ok := CountEntryParams(src, x.Kernel)
	if !ok {
		return nil, fmt.Sprintf("no .entry %s in %s", x.Kernel, ptx)
	}
	if x.Output == nil {
		return nil, "no output buffer recorded"
	}
	out, why := elemBuffer("output", x.Output)
	if why != "" {
		return nil, why
	}
	outBytes, _ := hex.DecodeString(x.Output.BytesHexLE)
	if k := overrun[name]; k > 0 {
		out.Count *= k
	}

	// What the harness passes, in order.
	var args []specParam
	warp := x.Input == nil
	if macro == "test_ptx_warp!" && !warp {
		return nil, "test_ptx_warp! test with an input buffer"
	}
	if warp {
		args = []specParam{out, {Name: "output_again", Kind: spec.KindBuffer, SameAs: "output"}}
	} else {
		in, why := elemBuffer("input", x.Input)
		if why != "" {
			return nil, why
		}
		args = []specParam{in, out}
	}
	switch {
	case nparams > len(args):
		return nil, fmt.Sprintf("kernel declares %d parameters; the harness passes %d", nparams, len(args))
	case nparams < len(args) && !warp:
		return nil, fmt.Sprintf("kernel declares %d parameters, so it does not receive the output buffer", nparams)
	case nparams == 0:
		return nil, "kernel declares no parameters"
	}
	args = args[:nparams]

	// The output starts zeroed and must equal the recorded bytes.
	values := make([]string, x.Output.Count)
	size, _ := spec.ElemSize(out.Elem)
	for i := range values {
		var v uint64
		for k := size - 1; k >= 0; k-- {
			v = v<<8 | uint64(outBytes[i*size+k])
		}
		values[i] = fmt.Sprintf("0x%0*x", 2*size, v)
	}
	l := x.Launch
	return parse(root, name, specDoc{
		Name: name, PTX: ptx, Kernel: x.Kernel,
		Launch: &specLaunch{Grid: l.Grid, Block: l.Block, DynamicSharedBytes: l.DynamicSharedBytes},
		Params: args,
		Expect: []specExpect{{Param: "output", Count: len(values), ValuesHex: values}},
	})
}

// overrun lists the kernels that store past the end of the harness's
// output buffer, with the factor their buffer grows by here. The GPU does
// not fault on such a store (the allocation is padded to its page) and
// the recording covers only the buffer's own elements; the simulator
// faults on every out-of-bounds byte, so the spec gives the kernel the
// room it writes and compares the recorded prefix.
var overrun = map[string]int{
	// 64 threads store 32 bytes each into a 256-element f32 buffer:
	// warp 1's results land past the end.
	"mma_m16n8k16_f32_bf16_bf16_f32_2x": 2,
}

// elemBuffer checks a recorded buffer (type, count, bytes and per-element
// bits agree) and returns it as a spec buffer parameter: the input holds
// its bytes, the output starts zeroed.
func elemBuffer(name string, b *buffer) (specParam, string) {
	elem, ok := elemOf[b.Type]
	if !ok {
		return specParam{}, fmt.Sprintf("%s type %q has no spec element type", name, b.Type)
	}
	if b.Count <= 0 {
		return specParam{}, fmt.Sprintf("%s has %d elements", name, b.Count)
	}
	size, _ := spec.ElemSize(elem)
	raw, err := hex.DecodeString(b.BytesHexLE)
	if err != nil || len(raw) != b.Count*size {
		return specParam{}, fmt.Sprintf("%s.bytes_hex_le is not %d %s elements", name, b.Count, b.Type)
	}
	if len(b.ElemBitsHex) != b.Count {
		return specParam{}, fmt.Sprintf("%s.elem_bits_hex has %d entries for %d elements", name, len(b.ElemBitsHex), b.Count)
	}
	for i, bits := range b.ElemBitsHex {
		var v uint64
		for k := size - 1; k >= 0; k-- {
			v = v<<8 | uint64(raw[i*size+k])
		}
		if want := fmt.Sprintf("0x%0*x", 2*size, v); !strings.EqualFold(bits, want) {
			return specParam{}, fmt.Sprintf("%s element %d: elem_bits_hex %s disagrees with bytes_hex_le (%s)", name, i, bits, want)
		}
	}
	p := specParam{Name: name, Kind: spec.KindBuffer, Elem: elem, Count: b.Count}
	if name == "output" {
		p.Init = spec.InitZero
	} else {
		h := b.BytesHexLE
		p.InitHexLE = &h
	}
	return p, ""
}

// CountEntryParams counts the parameters of the .entry named kernel with a
// simple scan (comments removed; ".param" occurrences inside the entry's
// parenthesized list). ok is false when there is no such .entry.
func CountEntryParams(src []byte, kernel string) (n int, ok bool) {
	text := stripComments(src)
	for i := 0; ; {
		k := strings.Index(text[i:], ".entry")
		if k < 0 {
			return 0, false
		}
		j := i + k + len(".entry")
		i = j
		if j < len(text) && isIdent(text[j]) {
			continue // e.g. ".entryfoo"
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		s := j
		for j < len(text) && isIdent(text[j]) {
			j++
		}
		if text[s:j] != kernel {
			continue
		}
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		if j >= len(text) || text[j] != '(' {
			return 0, true // PTX 1.x style: no parameter list
		}
		end := strings.IndexByte(text[j:], ')')
		if end < 0 {
			return 0, false
		}
		list := text[j : j+end]
		for p := 0; ; {
			q := strings.Index(list[p:], ".param")
			if q < 0 {
				break
			}
			p += q + len(".param")
			if p >= len(list) || !isIdent(list[p]) {
				n++
			}
		}
		return n, true
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c == '%' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// stripComments replaces // and /* */ comments with spaces (strings in PTX
// do not contain comment markers in practice).
func stripComments(src []byte) string {
	b := []byte(string(src))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			j := bytes.Index(b[i+2:], []byte("*/"))
			end := len(b)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for ; i < end; i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			i--
		}
	}
	return string(b)
}
