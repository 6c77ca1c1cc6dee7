package spec

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Spec is one kernel spec: a PTX module, a kernel, a launch, the kernel's
// parameters and what the output buffers must hold.
type Spec struct {
	Name    string // "name", or the file name without its extension
	File    string // the spec file as named to Load or Parse (for messages)
	Dir     string // directory relative paths are resolved against
	PTX     string // "ptx" as written
	PTXPath string // PTX resolved against Dir (an existing regular file)
	Kernel  string // the .entry name
	Launch  Launch
	Params  []Param // in the kernel's parameter order
	// Textures are the texture bindings (texture.go); none in a spec
	// without "textures".
	Textures []Texture
	Expect   []Expect // empty when there is nothing to check
	// CompileOnly is set by the expectation {"compile_only": true}: the spec
	// only has to compile; Expect is then empty.
	CompileOnly bool
}

// Launch is the launch configuration. Missing grid or block dimensions are
// 1. A compile-only spec may omit "launch"; it then holds 1×1×1 and 1×1×1.
type Launch struct {
	Grid, Block        [3]int
	DynamicSharedBytes int // size of extern .shared arrays
}

// Parameter kinds.
const (
	KindBuffer = "buffer"
	KindScalar = "scalar"
	// KindTexture (texture.go) passes a texture object's handle.
)

// Param is one kernel parameter.
//
// A buffer (Kind "buffer") has exactly one of: Init ("zero", "index",
// "const:V" or "lcg:SEED"), InitHexLE (the "init_hex_le" bytes, decoded;
// non-nil, possibly empty) or SameAs (the name of an earlier buffer
// parameter whose allocation it shares; Elem and Count are then empty).
// A scalar (Kind "scalar") has Type and Value.
type Param struct {
	Name string
	Kind string // KindBuffer or KindScalar

	Elem      string // buffer element type, u8 … f64
	Count     int    // buffer element count
	Init      string
	InitHexLE []byte
	SameAs    string

	Type  string // scalar type, u8 … f64
	Value string // scalar value: decimal, or 0x hex (bits for floats)

	Texture string // KindTexture: the name of the texture binding
}

// Expect is one expected buffer after the launch. The first Count elements
// of type Elem of the buffer must equal Values (one bit pattern each), or
// all equal AllEqual, except for IgnoreIndices; with a Tolerance (float
// elements only) close values pass too.
type Expect struct {
	Param      string // name of the buffer parameter
	ParamIndex int    // its position in Spec.Params
	// Elem and Count default to the buffer's element type and to as many
	// elements as fit in its allocation.
	Elem          string
	Count         int
	Values        []uint64 // values_hex or values_hex_file; nil with AllEqual
	AllEqual      *uint64
	ValuesFile    string // values_hex_file resolved against Spec.Dir, or ""
	Tolerance     *Tolerance
	IgnoreIndices map[int]bool // nil when none
}

// Tolerance kinds.
const (
	TolRelAbs = "rel_abs" // |got-want| <= Abs + Rel*|want|
	TolULP    = "ulp"     // within ULP units in the last place
)

// Tolerance relaxes the default bit-exact comparison of float elements.
// NaN matches any NaN; see Expect.Check.
type Tolerance struct {
	Kind     string // TolRelAbs or TolULP
	Rel, Abs float64
	ULP      int64
}

// Owner returns the index of the parameter whose allocation parameter i
// uses: i itself for a buffer with its own allocation, the (transitively)
// named earlier buffer for same_as, and -1 for a scalar, an unknown index or
// a same_as that does not resolve.
func (s *Spec) Owner(i int) int {
	for steps := 0; steps <= len(s.Params); steps++ {
		if i < 0 || i >= len(s.Params) || s.Params[i].Kind != KindBuffer {
			return -1
		}
		p := s.Params[i]
		if p.SameAs == "" {
			return i
		}
		j := s.paramIndex(p.SameAs)
		if j < 0 || j >= i {
			return -1
		}
		i = j
	}
	return -1
}

// Lookup returns the position of the parameter named name, or -1.
func (s *Spec) Lookup(name string) int { return s.paramIndex(name) }

func (s *Spec) paramIndex(name string) int {
	for i, p := range s.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Load reads and validates a spec file. Relative paths in it (ptx,
// values_hex_file) are resolved against the spec file's directory. Errors
// other than an unreadable file are *Error.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, filepath.Dir(path))
}

// Parse validates a spec given as bytes. name names the spec in errors (and
// gives the default Spec.Name); dir resolves relative paths ("" is the
// current directory). Errors are *Error.
func Parse(name string, data []byte, dir string) (s *Spec, err error) {
	r := &reader{file: name, data: data, dir: dir}
	defer func() {
		if x := recover(); x != nil {
			f, ok := x.(failure)
			if !ok {
				panic(x)
			}
			s, err = nil, f.err
		}
	}()
	root, jerr := parseJSON(data)
	if jerr != nil {
		pe := jerr.(*posError)
		r.fatalAt(pe.off, "", "%s", pe.msg)
	}
	return r.spec(root), nil
}

// failure carries the first error out of the reader.
type failure struct{ err *Error }

type reader struct {
	file string
	data []byte
	dir  string
}

// fatalAt stops with an error positioned in the JSON text.
func (r *reader) fatalAt(off int, path, format string, args ...any) {
	line, col := lineCol(r.data, off)
	panic(failure{&Error{File: r.file, Line: line, Col: col, Path: path, Msg: fmt.Sprintf(format, args...)}})
}

// fatal stops with an error about a value.
func (r *reader) fatal(path, format string, args ...any) {
	panic(failure{&Error{File: r.file, Path: path, Msg: fmt.Sprintf(format, args...)}})
}

func field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// object checks that v is an object with only the allowed fields and
// returns its fields by name.
func (r *reader) object(v *jvalue, path string, allowed ...string) map[string]*jvalue {
	if v.kind != jObject {
		r.fatalAt(v.off, path, "want an object, got %s", v.describe())
	}
	m := make(map[string]*jvalue, len(v.mems))
	for _, mem := range v.mems {
		ok := false
		for _, a := range allowed {
			ok = ok || a == mem.key
		}
		if !ok {
			r.fatalAt(mem.off, path, "unknown field %q (want %s)", mem.key, strings.Join(allowed, ", "))
		}
		m[mem.key] = mem.val
	}
	return m
}

func (r *reader) require(m map[string]*jvalue, path, name string) *jvalue {
	v := m[name]
	if v == nil {
		r.fatal(path, "missing required field %q", name)
	}
	return v
}

func (r *reader) str(v *jvalue, path string) string {
	if v.kind != jString {
		r.fatalAt(v.off, path, "want a string, got %s", v.describe())
	}
	return v.s
}

func (r *reader) nonEmpty(v *jvalue, path string) string {
	s := r.str(v, path)
	if s == "" {
		r.fatal(path, "must not be empty")
	}
	return s
}

func (r *reader) integer(v *jvalue, path string) int {
	if v.kind != jNumber {
		r.fatalAt(v.off, path, "want an integer, got %s", v.describe())
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	if err != nil {
		if isDecimalInt(v.s) {
			r.fatal(path, "%s is out of range", v.s)
		}
		r.fatalAt(v.off, path, "want an integer, got %s", v.describe())
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		r.fatal(path, "%s is out of range", v.s)
	}
	return int(n)
}

func (r *reader) boolean(v *jvalue, path string) bool {
	if v.kind != jBool {
		r.fatalAt(v.off, path, "want true or false, got %s", v.describe())
	}
	return v.b
}

func (r *reader) elem(v *jvalue, path string) string {
	s := r.str(v, path)
	if _, ok := elemTypes[s]; !ok {
		r.fatal(path, "unknown element type %q (want one of %s)", s, elemList)
	}
	return s
}

// file resolves a path given in the spec and checks that it names a
// readable regular file.
func (r *reader) existing(rel, path string) string {
	full := rel
	if !filepath.IsAbs(rel) {
		full = filepath.Join(r.dir, rel)
	}
	st, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.fatal(path, "%s: no such file", full)
	case err != nil:
		r.fatal(path, "%v", err)
	case st.IsDir():
		r.fatal(path, "%s: is a directory", full)
	}
	return full
}

func (r *reader) spec(root *jvalue) *Spec {
	m := r.object(root, "", "name", "ptx", "kernel", "launch", "params", "expect", "textures")
	s := &Spec{File: r.file, Dir: r.dir}
	if v := m["name"]; v != nil {
		s.Name = r.nonEmpty(v, "name")
	} else {
		base := filepath.Base(r.file)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	s.PTX = r.nonEmpty(r.require(m, "", "ptx"), "ptx")
	s.PTXPath = r.existing(s.PTX, "ptx")
	s.Kernel = r.nonEmpty(r.require(m, "", "kernel"), "kernel")
	if v := m["params"]; v != nil {
		r.params(s, v)
	}
	if v := m["textures"]; v != nil {
		r.textures(s, v)
	}
	r.textureParams(s)
	if v := m["expect"]; v != nil {
		r.expects(s, v)
	}
	s.Launch = Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{1, 1, 1}}
	if v := m["launch"]; v != nil {
		s.Launch = r.launch(v)
	} else if !s.CompileOnly {
		r.fatal("", "missing required field \"launch\" (only a compile_only spec may omit it)")
	}
	return s
}

// CUDA launch limits, as cudaLaunchKernel enforces them.
const (
	maxGridX          = math.MaxInt32
	maxGridYZ         = 65535
	maxBlockXY        = 1024
	maxBlockZ         = 64
	maxThreadsInBlock = 1024
)

func (r *reader) launch(v *jvalue) Launch {
	m := r.object(v, "launch", "grid", "block", "dynamic_shared_bytes")
	var l Launch
	l.Grid = r.dims(r.require(m, "launch", "grid"), "launch.grid", [3]int{maxGridX, maxGridYZ, maxGridYZ})
	l.Block = r.dims(r.require(m, "launch", "block"), "launch.block", [3]int{maxBlockXY, maxBlockXY, maxBlockZ})
	if n := l.Block[0] * l.Block[1] * l.Block[2]; n > maxThreadsInBlock {
		r.fatal("launch.block", "%d threads in a block exceed %d", n, maxThreadsInBlock)
	}
	if d := m["dynamic_shared_bytes"]; d != nil {
		l.DynamicSharedBytes = r.integer(d, "launch.dynamic_shared_bytes")
		if l.DynamicSharedBytes < 0 {
			r.fatal("launch.dynamic_shared_bytes", "must not be negative, got %d", l.DynamicSharedBytes)
		}
	}
	return l
}

func (r *reader) dims(v *jvalue, path string, limit [3]int) [3]int {
	if v.kind != jArray {
		r.fatalAt(v.off, path, "want a list of 1 to 3 integers, got %s", v.describe())
	}
	if len(v.elems) == 0 || len(v.elems) > 3 {
		r.fatal(path, "want 1 to 3 integers, got %d", len(v.elems))
	}
	d := [3]int{1, 1, 1}
	for i, e := range v.elems {
		p := index(path, i)
		d[i] = r.integer(e, p)
		if d[i] <= 0 {
			r.fatal(p, "must be positive, got %d", d[i])
		}
		if d[i] > limit[i] {
			r.fatal(p, "%d exceeds the limit %d", d[i], limit[i])
		}
	}
	return d
}

func (r *reader) params(s *Spec, v *jvalue) {
	if v.kind != jArray {
		r.fatalAt(v.off, "params", "want a list, got %s", v.describe())
	}
	for i, pv := range v.elems {
		path := index("params", i)
		m := r.object(pv, path, "name", "kind", "elem", "count", "init", "init_hex_le", "same_as", "type", "value", "texture")
		p := Param{Name: r.nonEmpty(r.require(m, path, "name"), field(path, "name"))}
		if j := s.paramIndex(p.Name); j >= 0 {
			r.fatal(field(path, "name"), "duplicate name %q (also params[%d])", p.Name, j)
		}
		p.Kind = r.str(r.require(m, path, "kind"), field(path, "kind"))
		if m["texture"] != nil && p.Kind != KindTexture {
			r.fatal(field(path, "texture"), "only a parameter of kind texture names a texture")
		}
		switch p.Kind {
		case KindTexture:
			for _, f := range []string{"elem", "count", "init", "init_hex_le", "same_as", "type", "value"} {
				if m[f] != nil {
					r.fatal(field(path, f), "not allowed for a texture (the kernel receives the texture's handle)")
				}
			}
			p.Texture = r.nonEmpty(r.require(m, path, "texture"), field(path, "texture"))
		case KindBuffer:
			r.buffer(s, &p, m, path)
		case KindScalar:
			for _, f := range [...]struct{ name, hint string }{
				{"elem", " (use type)"}, {"count", ""}, {"init", " (use value)"},
				{"init_hex_le", " (use value)"}, {"same_as", ""},
			} {
				if m[f.name] != nil {
					r.fatal(field(path, f.name), "not allowed for a scalar%s", f.hint)
				}
			}
			p.Type = r.elem(r.require(m, path, "type"), field(path, "type"))
			p.Value = r.str(r.require(m, path, "value"), field(path, "value"))
			if _, err := parseValue(p.Value, p.Type); err != nil {
				r.fatal(field(path, "value"), "%v", err)
			}
		default:
			r.fatal(field(path, "kind"), "unknown kind %q (want buffer, scalar or texture)", p.Kind)
		}
		s.Params = append(s.Params, p)
	}
}

func (r *reader) buffer(s *Spec, p *Param, m map[string]*jvalue, path string) {
	if m["type"] != nil {
		r.fatal(field(path, "type"), "not allowed for a buffer (use elem)")
	}
	if m["value"] != nil {
		r.fatal(field(path, "value"), "not allowed for a buffer (use init)")
	}
	var given []string
	for _, f := range []string{"init", "init_hex_le", "same_as"} {
		if m[f] != nil {
			given = append(given, f)
		}
	}
	switch len(given) {
	case 0:
		r.fatal(path, "missing init %s", initWant)
	case 1:
	default:
		r.fatal(path, "%s are exclusive (want exactly one of init, init_hex_le, same_as)", strings.Join(given, " and "))
	}
	if v := m["same_as"]; v != nil {
		p.SameAs = r.nonEmpty(v, field(path, "same_as"))
		j := s.paramIndex(p.SameAs)
		switch {
		case j < 0:
			r.fatal(field(path, "same_as"), "%q does not name an earlier parameter", p.SameAs)
		case s.Params[j].Kind != KindBuffer:
			r.fatal(field(path, "same_as"), "%q is a scalar, not a buffer", p.SameAs)
		}
		for _, f := range []string{"elem", "count"} {
			if m[f] != nil {
				r.fatal(field(path, f), "not allowed with same_as (the buffer is %q's)", p.SameAs)
			}
		}
		return
	}
	p.Elem = r.elem(r.require(m, path, "elem"), field(path, "elem"))
	p.Count = r.integer(r.require(m, path, "count"), field(path, "count"))
	size, _ := ElemSize(p.Elem)
	if p.Count <= 0 {
		r.fatal(field(path, "count"), "must be positive, got %d", p.Count)
	}
	if p.Count > maxBufferBytes/size {
		r.fatal(field(path, "count"), "%d %s elements exceed the buffer limit of %d bytes", p.Count, p.Elem, maxBufferBytes)
	}
	if v := m["init"]; v != nil {
		p.Init = r.str(v, field(path, "init"))
		if _, err := parseInit(p.Init, p.Elem); err != nil {
			r.fatal(field(path, "init"), "%v", err)
		}
		return
	}
	hs := r.str(m["init_hex_le"], field(path, "init_hex_le"))
	b, err := decodeHexLE(hs)
	if err != nil {
		r.fatal(field(path, "init_hex_le"), "%v", err)
	}
	if len(b) > size*p.Count {
		r.fatal(field(path, "init_hex_le"), "%d bytes exceed the buffer (%d %s elements, %d bytes)", len(b), p.Count, p.Elem, size*p.Count)
	}
	p.InitHexLE = b
}

// decodeHexLE decodes a hex byte string (two digits per byte, no prefix).
func decodeHexLE(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits (%d)", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		var ie hex.InvalidByteError
		if errors.As(err, &ie) {
			i := strings.IndexByte(s, byte(ie))
			return nil, fmt.Errorf("invalid hex digit %q at offset %d", rune(ie), i)
		}
		return nil, err
	}
	return b, nil
}

func (r *reader) expects(s *Spec, v *jvalue) {
	switch v.kind {
	case jObject:
		r.expect(s, v, "expect")
	case jArray:
		for i, e := range v.elems {
			r.expect(s, e, index("expect", i))
		}
	default:
		r.fatalAt(v.off, "expect", "want an object or a list of objects, got %s", v.describe())
	}
}

const valuesWant = "(want exactly one of values_hex, values_hex_file, all_equal, compile_only)"

func (r *reader) expect(s *Spec, v *jvalue, path string) {
	m := r.object(v, path, "param", "elem", "count", "values_hex", "values_hex_file", "all_equal", "tolerance", "ignore_indices", "compile_only")
	compileOnly := false
	if c := m["compile_only"]; c != nil {
		compileOnly = r.boolean(c, field(path, "compile_only"))
	}
	var given []string
	for _, f := range []string{"values_hex", "values_hex_file", "all_equal"} {
		if m[f] != nil {
			given = append(given, f)
		}
	}
	if compileOnly {
		given = append(given, "compile_only")
	}
	switch len(given) {
	case 0:
		r.fatal(path, "missing expected values %s", valuesWant)
	case 1:
	default:
		r.fatal(path, "%s are exclusive %s", strings.Join(given, " and "), valuesWant)
	}
	if s.CompileOnly {
		r.fatal(path, "compile_only must be the only expectation")
	}
	if compileOnly {
		for _, f := range []string{"param", "elem", "count", "tolerance", "ignore_indices"} {
			if m[f] != nil {
				r.fatal(field(path, f), "not allowed with compile_only")
			}
		}
		if len(s.Expect) > 0 {
			r.fatal(path, "compile_only must be the only expectation")
		}
		s.CompileOnly = true
		return
	}

	e := Expect{ParamIndex: -1}
	pv := r.require(m, path, "param")
	pp := field(path, "param")
	switch pv.kind {
	case jString:
		e.ParamIndex = s.paramIndex(pv.s)
		if e.ParamIndex < 0 {
			r.fatal(pp, "unknown parameter %q", pv.s)
		}
	case jNumber:
		e.ParamIndex = r.integer(pv, pp)
		if e.ParamIndex < 0 || e.ParamIndex >= len(s.Params) {
			r.fatal(pp, "index %d out of range (%d parameters)", e.ParamIndex, len(s.Params))
		}
	default:
		r.fatalAt(pv.off, pp, "want a parameter name or index, got %s", pv.describe())
	}
	e.Param = s.Params[e.ParamIndex].Name
	owner := s.Owner(e.ParamIndex)
	if owner < 0 {
		r.fatal(pp, "%q is a scalar, not a buffer", e.Param)
	}
	buf := s.Params[owner]
	bufBytes := buf.Size()
	e.Elem = buf.Elem
	if ev := m["elem"]; ev != nil {
		e.Elem = r.elem(ev, field(path, "elem"))
	}
	size, _ := ElemSize(e.Elem)
	if cv := m["count"]; cv != nil {
		e.Count = r.integer(cv, field(path, "count"))
		if e.Count <= 0 {
			r.fatal(field(path, "count"), "must be positive, got %d", e.Count)
		}
		if e.Count > bufBytes/size {
			r.fatal(field(path, "count"), "%d %s elements (%d bytes) exceed buffer %q (%d %s elements, %d bytes)",
				e.Count, e.Elem, int64(e.Count)*int64(size), buf.Name, buf.Count, buf.Elem, bufBytes)
		}
	} else {
		if bufBytes%size != 0 {
			r.fatal(field(path, "elem"), "buffer %q (%d bytes) is not a whole number of %s elements; give count", buf.Name, bufBytes, e.Elem)
		}
		e.Count = bufBytes / size
	}

	switch {
	case m["values_hex"] != nil:
		lv := m["values_hex"]
		lp := field(path, "values_hex")
		if lv.kind != jArray {
			r.fatalAt(lv.off, lp, "want a list of bit patterns, got %s", lv.describe())
		}
		e.Values = make([]uint64, 0, len(lv.elems))
		for i, x := range lv.elems {
			ip := index(lp, i)
			if x.kind != jString {
				r.fatalAt(x.off, ip, "want a bit pattern string such as \"0x3f800000\", got %s", x.describe())
			}
			b, err := parseBits(x.s, e.Elem)
			if err != nil {
				r.fatal(ip, "%v", err)
			}
			e.Values = append(e.Values, b)
		}
		if len(e.Values) != e.Count {
			r.fatal(lp, "%d values, want %d (count)", len(e.Values), e.Count)
		}
	case m["values_hex_file"] != nil:
		fp := field(path, "values_hex_file")
		rel := r.nonEmpty(m["values_hex_file"], fp)
		e.ValuesFile = r.existing(rel, fp)
		e.Values = r.valuesFile(e.ValuesFile, rel, fp, e.Elem, e.Count)
	case m["all_equal"] != nil:
		ap := field(path, "all_equal")
		av := m["all_equal"]
		if av.kind != jString {
			r.fatalAt(av.off, ap, "want a bit pattern string such as \"0x3f800000\", got %s", av.describe())
		}
		b, err := parseBits(av.s, e.Elem)
		if err != nil {
			r.fatal(ap, "%v", err)
		}
		e.AllEqual = &b
	}

	if tv := m["tolerance"]; tv != nil {
		e.Tolerance = r.tolerance(tv, field(path, "tolerance"), e.Elem)
	}
	if iv := m["ignore_indices"]; iv != nil {
		ip := field(path, "ignore_indices")
		if iv.kind != jArray {
			r.fatalAt(iv.off, ip, "want a list of element indices, got %s", iv.describe())
		}
		e.IgnoreIndices = make(map[int]bool, len(iv.elems))
		for i, x := range iv.elems {
			xp := index(ip, i)
			k := r.integer(x, xp)
			if k < 0 || k >= e.Count {
				r.fatal(xp, "index %d out of range (count %d)", k, e.Count)
			}
			if e.IgnoreIndices[k] {
				r.fatal(xp, "duplicate index %d", k)
			}
			e.IgnoreIndices[k] = true
		}
	}
	s.Expect = append(s.Expect, e)
}

// valuesFile reads a values_hex_file: one bit pattern per line; blank lines
// and lines starting with # are skipped.
func (r *reader) valuesFile(full, rel, path, elem string, count int) []uint64 {
	data, err := os.ReadFile(full)
	if err != nil {
		r.fatal(path, "%v", err)
	}
	var vals []uint64
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b, err := parseBits(line, elem)
		if err != nil {
			r.fatal(path, "%s:%d: %v", rel, n+1, err)
		}
		if len(vals) == count {
			r.fatal(path, "%s has more than %d values (count)", rel, count)
		}
		vals = append(vals, b)
	}
	if len(vals) != count {
		r.fatal(path, "%s has %d values, want %d (count)", rel, len(vals), count)
	}
	return vals
}

func (r *reader) tolerance(v *jvalue, path, elem string) *Tolerance {
	m := r.object(v, path, "rel", "abs", "ulp")
	if !IsFloat(elem) {
		r.fatal(path, "only for float elements, elem is %s", elem)
	}
	num := func(name string) float64 {
		x := m[name]
		p := field(path, name)
		if x.kind != jNumber {
			r.fatalAt(x.off, p, "want a number, got %s", x.describe())
		}
		f, err := strconv.ParseFloat(x.s, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			r.fatal(p, "must be a finite non-negative number, got %s", x.s)
		}
		return f
	}
	t := &Tolerance{}
	switch {
	case m["ulp"] != nil:
		if m["rel"] != nil || m["abs"] != nil {
			r.fatal(path, "ulp excludes rel and abs")
		}
		t.Kind = TolULP
		t.ULP = int64(r.integer(m["ulp"], field(path, "ulp")))
		if t.ULP < 0 {
			r.fatal(field(path, "ulp"), "must not be negative, got %d", t.ULP)
		}
	case m["rel"] != nil || m["abs"] != nil:
		t.Kind = TolRelAbs
		if m["rel"] != nil {
			t.Rel = num("rel")
		}
		if m["abs"] != nil {
			t.Abs = num("abs")
		}
	default:
		r.fatal(path, "empty (want rel and/or abs, or ulp)")
	}
	return t
}
