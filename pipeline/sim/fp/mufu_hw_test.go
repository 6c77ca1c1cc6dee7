package fp

import (
	"archive/tar"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"orilab/internal/testenv"
)

// The H100's .approx results (../shared/hwtruth/ops-h100.tgz, format in its
// README.md) against this package's models, composed the way the lowering
// (pipeline/lower/float.go) surrounds MUFU. Every input of the structured
// sweeps and of the 2^23-input binade sweeps is compared (about 10 s on
// two cores). The limits in hwOps and hwBinades are the counts measured
// when the models were last changed: a model that gets worse fails, one
// that gets better should lower them.

// opsArchive holds the unpacked ops-h100.tgz, read once per test binary.
var opsArchive struct {
	once  sync.Once
	files map[string][]byte
	err   error
}

func loadOps(t *testing.T) map[string][]byte {
	t.Helper()
	path := filepath.Join(testenv.Shared(t), "hwtruth", "ops-h100.tgz")
	opsArchive.once.Do(func() {
		opsArchive.files, opsArchive.err = readTgz(path)
	})
	if opsArchive.err != nil {
		t.Fatal(opsArchive.err)
	}
	return opsArchive.files
}

func readTgz(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	files := map[string][]byte{}
	r := tar.NewReader(z)
	for {
		h, err := r.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", path, h.Name, err)
		}
		files[strings.TrimPrefix(h.Name, "./")] = b
	}
}

// words splits a little-endian file into size-byte words.
func words(t *testing.T, files map[string][]byte, name string, size int) []uint64 {
	t.Helper()
	b, ok := files[name]
	if !ok {
		t.Fatalf("ops-h100.tgz has no %s", name)
	}
	if len(b)%size != 0 {
		t.Fatalf("%s: %d bytes, not a multiple of %d", name, len(b), size)
	}
	w := make([]uint64, len(b)/size)
	for i := range w {
		switch size {
		case 2:
			w[i] = uint64(binary.LittleEndian.Uint16(b[2*i:]))
		case 4:
			w[i] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
		default:
			w[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
	}
	return w
}

// binadeOutputs decodes binade/NAME.d8 + NAME.esc: int8 deltas between
// consecutive 32-bit outputs, -128 meaning "the next word of .esc".
func binadeOutputs(t *testing.T, files map[string][]byte, name string) []uint32 {
	t.Helper()
	d8, esc := files["binade/"+name+".d8"], files["binade/"+name+".esc"]
	if d8 == nil || esc == nil {
		t.Fatalf("ops-h100.tgz has no binade/%s.{d8,esc}", name)
	}
	out := make([]uint32, len(d8))
	var prev uint32
	k := 0
	for i, b := range d8 {
		if int8(b) == -128 {
			if 4*k+4 > len(esc) {
				t.Fatalf("binade/%s.esc: too few escapes", name)
			}
			prev = binary.LittleEndian.Uint32(esc[4*k:])
			k++
		} else {
			prev += uint32(int32(int8(b)))
		}
		out[i] = prev
	}
	return out
}

// ulpDist is the distance between two non-NaN values of a format with
// the given sign bit position, counted in representable values.
func ulpDist(a, b uint64, signBit uint) uint64 {
	ord := func(x uint64) int64 {
		m := uint64(1)<<signBit - 1
		if x>>signBit&1 != 0 {
			return -int64(x & m)
		}
		return int64(x & m)
	}
	d := ord(a) - ord(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// hwStat counts one instruction's comparison.
type hwStat struct {
	inputs, diff, nanDiff int
	worst                 uint64
	first                 string
}

func (s *hwStat) add(in, got, want uint64, bits uint, isNaN func(uint64) bool) {
	s.inputs++
	if got == want {
		return
	}
	if isNaN(got) && isNaN(want) {
		s.nanDiff++ // a NaN of another bit pattern: not this model's business
		return
	}
	s.diff++
	d := uint64(math.MaxUint64)
	if !isNaN(got) && !isNaN(want) {
		d = ulpDist(got, want, bits-1)
	}
	if d > s.worst || s.first == "" {
		if s.first == "" {
			s.first = fmt.Sprintf("in %#x: got %#x, want %#x", in, got, want)
		}
		if d > s.worst {
			s.worst = d
		}
	}
}

func hwNaN32(x uint64) bool { return x&0x7fffffff > 0x7f800000 }
func hwNaN16(x uint64) bool { return x&0x7fff > 0x7c00 }
func hwNaN64(x uint64) bool { return x&(1<<63-1) > 0x7ff0000000000000 }

// hwOp is one instruction of ops-h100.tgz and the model of it.
type hwOp struct {
	name  string // PTX instruction as in mufu-NAME.bin
	in    int    // input width in bytes (2, 4, 8)
	out   int    // output width
	f32   func(uint32) uint32
	f16   func(uint16) uint16
	f64   func(uint64) uint64
	limit hwLimit // the accepted upper bound (regressions fail)
}

// hwLimit bounds the differing inputs and their worst ulp distance.
type hwLimit struct {
	diff  int
	worst uint64
}

func (o *hwOp) eval(x uint64) uint64 {
	switch {
	case o.f32 != nil:
		return uint64(o.f32(uint32(x)))
	case o.f16 != nil:
		return uint64(o.f16(uint16(x)))
	}
	return o.f64(x)
}

func (o *hwOp) isNaN() func(uint64) bool {
	switch o.out {
	case 2:
		return hwNaN16
	case 4:
		return hwNaN32
	}
	return hwNaN64
}

// binadeSweep is one exhaustive binade of ops-h100.tgz.
type binadeSweep struct {
	name  string // binade/NAME
	base  uint32 // first input
	fn    func(uint32) uint32
	limit hwLimit
}

func TestMUFUHardware(t *testing.T) {
	files := loadOps(t)
	type row struct {
		name string
		s    hwStat
		lim  hwLimit
	}
	var rows []row
	for _, op := range hwOps() {
		ins := words(t, files, fmt.Sprintf("mufu-inputs-f%d.bin", 8*op.in), op.in)
		outs := words(t, files, "mufu-"+op.name+".bin", op.out)
		if len(ins) != len(outs) {
			t.Fatalf("%s: %d inputs, %d outputs", op.name, len(ins), len(outs))
		}
		var s hwStat
		isNaN := op.isNaN()
		for i, x := range ins {
			s.add(x, op.eval(x), outs[i], uint(8*op.out), isNaN)
		}
		rows = append(rows, row{op.name, s, op.limit})
	}
	// The binades (2^23 inputs each) run in parallel.
	bs := hwBinades()
	brows := make([]row, len(bs))
	var wg sync.WaitGroup
	for k, b := range bs {
		outs := binadeOutputs(t, files, b.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s hwStat
			for i, w := range outs {
				x := b.base + uint32(i)
				s.add(uint64(x), uint64(b.fn(x)), uint64(w), 32, hwNaN32)
			}
			brows[k] = row{"binade/" + b.name, s, b.limit}
		}()
	}
	wg.Wait()
	rows = append(rows, brows...)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-34s %9s %9s %9s %7s\n", "instruction", "inputs", "exact", "differ", "worst")
	for _, r := range rows {
		exact := r.s.inputs - r.s.diff - r.s.nanDiff
		worst := fmt.Sprint(r.s.worst)
		if r.s.worst == math.MaxUint64 {
			worst = "NaN"
		}
		fmt.Fprintf(&sb, "%-34s %9d %9d %9d %7s  %s\n", r.name, r.s.inputs, exact, r.s.diff, worst, r.s.first)
		if r.s.diff > r.lim.diff || r.s.worst > r.lim.worst {
			t.Errorf("%s: %d differing inputs (worst %s ulp), above the recorded bound of %d (worst %d); first: %s",
				r.name, r.s.diff, worst, r.lim.diff, r.lim.worst, r.s.first)
		}
	}
	t.Logf("H100 .approx sweeps (NaN results of another bit pattern are not counted as differing):\n%s", sb.String())
}
