package gpu

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"

	"orilab/internal/cuda"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/spec"
)

// Param is one kernel parameter's place in the parameter buffer.
type Param struct{ Offset, Size int }

// Outcome is one of the three executions.
type Outcome struct {
	Name    string        `json:"name"`
	Pass    bool          `json:"pass"`
	Results []spec.Result `json:"results,omitempty"`
	Err     string        `json:"error,omitempty"`
	buffers [][]byte
}

// Report is the result of Run.
type Report struct {
	Spec   string `json:"spec"`
	Kernel string `json:"kernel"`
	Arch   int    `json:"arch"` // the SM orilab compiled for (the device's)
	// Sim, Orilab and Driver: the simulator, orilab's cubin on the GPU
	// and the driver's JIT of the PTX on the GPU.
	Sim, Orilab, Driver Outcome
	// Agree: orilab's cubin wrote the same bytes as the driver's code in
	// every buffer.
	Agree bool `json:"agree"`
	// Pass: all three passed the spec and the two GPU runs agree.
	Pass bool `json:"pass"`
}

// Options is what Run compiles with; Request.Arch 0 takes the device's.
type Options struct {
	Request      pipeline.Request
	MaxWarpSteps int64
}

// Run loads the CUDA driver and runs s three ways. An error wrapping
// cuda.ErrNoDriver means there is no GPU to run on.
func Run(s *spec.Spec, opts Options) (*Report, error) {
	if len(s.Textures) > 0 {
		// Binding them needs the driver's array and texture-object
		// calls, which package cuda does not load.
		return nil, fmt.Errorf("%s: textures are not supported on the GPU yet (the simulator runs them: orilab run)", s.File)
	}
	d, err := cuda.Load()
	if err != nil {
		return nil, err
	}
	defer d.Close()
	req := opts.Request
	if req.Arch == 0 {
		if req.Arch, err = d.ComputeCapability(); err != nil {
			return nil, err
		}
	}
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		return nil, err
	}
	sess, err := req.StartFile(s.PTXPath, src, pipeline.SessionControl{})
	if err != nil {
		return nil, err
	}
	if err := sess.RunAll(); err != nil {
		return nil, err
	}
	m := sess.Module()
	f := m.Func(s.Kernel)
	if f == nil || !f.Entry {
		return nil, fmt.Errorf("%s: kernel %q is not an .entry of %s", s.File, s.Kernel, s.PTX)
	}
	if m.AddressSize == 32 {
		return nil, fmt.Errorf("%s: a module with .address_size 32 cannot take 64-bit device pointers; orilab gpu run needs .address_size 64", s.PTX)
	}
	b := sess.Backend()
	switch {
	case b == nil || (b.Cubin == nil && b.EncodeErr == nil):
		return nil, fmt.Errorf("no cubin for sm_%d: the encoding phases did not run", req.Arch)
	case b.EncodeErr != nil:
		return nil, fmt.Errorf("no cubin: %v", b.EncodeErr)
	}
	rep := &Report{Spec: s.Name, Kernel: s.Kernel, Arch: req.Arch}
	rep.Sim = Outcome{Name: "simulator"}
	if bufs, _, err := pipeline.ExecuteBuffers(m, s, pipeline.RunOptions{MaxWarpSteps: opts.MaxWarpSteps}); err != nil {
		rep.Sim.Err = err.Error()
	} else {
		rep.Sim.set(s, bufs)
	}
	layout, err := KParamLayout(b.Cubin, s.Kernel)
	if err != nil {
		return nil, err
	}
	rep.Orilab = runModule(d, s, "orilab cubin", b.Cubin, false, layout)
	rep.Driver = runModule(d, s, "driver JIT", src, true, FuncLayout(f, req.Arch))
	rep.Agree = rep.Orilab.Err == "" && rep.Driver.Err == "" && sameBuffers(rep.Orilab.buffers, rep.Driver.buffers)
	rep.Pass = rep.Sim.Pass && rep.Orilab.Pass && rep.Driver.Pass && rep.Agree
	return rep, nil
}

func (o *Outcome) set(s *spec.Spec, bufs [][]byte) {
	o.buffers = bufs
	o.Results = s.Check(bufs)
	o.Pass = spec.AllPass(o.Results)
}

func sameBuffers(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// runModule loads image and runs the spec's kernel from it.
func runModule(d *cuda.Driver, s *spec.Spec, name string, image []byte, ptx bool, layout []Param) Outcome {
	o := Outcome{Name: name}
	mod, err := d.LoadModule(image, ptx)
	if err != nil {
		o.Err = err.Error()
		return o
	}
	defer mod.Unload()
	bufs, err := launch(d, mod, s, layout)
	if err != nil {
		o.Err = err.Error()
		return o
	}
	o.set(s, bufs)
	return o
}

// launch allocates the spec's buffers, packs the arguments, runs the
// kernel and reads the buffers back.
func launch(d *cuda.Driver, mod *cuda.Module, s *spec.Spec, layout []Param) ([][]byte, error) {
	ptrs := make([]uint64, len(s.Params))
	sizes := make([]int, len(s.Params))
	defer func() {
		for _, p := range ptrs {
			if p != 0 {
				d.Free(p)
			}
		}
	}()
	args := make([][]byte, len(s.Params))
	for i, p := range s.Params {
		if p.Kind == spec.KindScalar {
			v, err := p.ScalarBytes()
			if err != nil {
				return nil, fmt.Errorf("%s: params[%d]: %v", s.File, i, err)
			}
			args[i] = v
			continue
		}
		o := s.Owner(i)
		if o < 0 {
			return nil, fmt.Errorf("%s: params[%d]: same_as %q does not name an earlier buffer", s.File, i, p.SameAs)
		}
		if o == i {
			init, err := p.InitBytes()
			if err != nil {
				return nil, fmt.Errorf("%s: params[%d]: %v", s.File, i, err)
			}
			ptr, err := d.Alloc(init)
			if err != nil {
				return nil, err
			}
			ptrs[i], sizes[i] = ptr, len(init)
		}
		args[i] = binary.LittleEndian.AppendUint64(nil, ptrs[o])
	}
	buf, err := ParamBuffer(layout, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.File, err)
	}
	if err := mod.Launch(s.Kernel, s.Launch.Grid, s.Launch.Block, s.Launch.DynamicSharedBytes, buf); err != nil {
		return nil, err
	}
	out := make([][]byte, len(s.Params))
	for i, p := range ptrs {
		if p == 0 {
			continue
		}
		b, err := d.Read(p, sizes[i])
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// ParamBuffer packs args (one per parameter, in order) at the offsets of
// layout; every argument must have its parameter's size.
func ParamBuffer(layout []Param, args [][]byte) ([]byte, error) {
	if len(args) != len(layout) {
		return nil, fmt.Errorf("%d arguments for a kernel with %d parameters", len(args), len(layout))
	}
	size := 0
	for _, p := range layout {
		size = max(size, p.Offset+p.Size)
	}
	buf := make([]byte, size)
	for i, p := range layout {
		if len(args[i]) != p.Size {
			return nil, fmt.Errorf("parameter %d is %d bytes, the argument %d", i, p.Size, len(args[i]))
		}
		copy(buf[p.Offset:], args[i])
	}
	return buf, nil
}

// FuncLayout is f's parameter layout relative to the parameter area.
func FuncLayout(f *ori.Func, arch int) []Param {
	base := int64(0x160)
	if arch >= 90 {
		base = 0x210
	}
	var out []Param
	for _, p := range f.Params {
		out = append(out, Param{Offset: int(p.Offset - base), Size: int(p.Size)})
	}
	return out
}

// KParamLayout reads kernel's EIATTR_KPARAM_INFO attributes from a
// cubin's .nv.info.KERNEL section: each parameter's ordinal, offset and
// size (payload: index u32, ordinal u16, offset u16, flags u32 with the
// size in bits 18-31).
func KParamLayout(cubin []byte, kernel string) ([]Param, error) {
	f, err := elf.NewFile(bytes.NewReader(cubin))
	if err != nil {
		return nil, fmt.Errorf("cubin: %v", err)
	}
	sec := f.Section(".nv.info." + kernel)
	if sec == nil {
		return nil, fmt.Errorf("cubin: no .nv.info.%s section", kernel)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("cubin: %v", err)
	}
	byOrd := map[int]Param{}
	n := 0
	for i := 0; i+4 <= len(data); {
		format, attr := data[i], data[i+1]
		switch format {
		case 1, 2, 3: // NVAL, BVAL, HVAL: a 16-bit field (NVAL's unused)
			i += 4
		case 4: // SVAL: a sized payload
			size := int(binary.LittleEndian.Uint16(data[i+2:]))
			if i+4+size > len(data) {
				return nil, fmt.Errorf("cubin: .nv.info.%s: attribute 0x%x runs past the section", kernel, attr)
			}
			if attr == 0x17 && size == 12 { // EIATTR_KPARAM_INFO
				pl := data[i+4:]
				ord := int(binary.LittleEndian.Uint16(pl[4:]))
				byOrd[ord] = Param{Offset: int(binary.LittleEndian.Uint16(pl[6:])), Size: int(binary.LittleEndian.Uint32(pl[8:]) >> 18)}
				n = max(n, ord+1)
			}
			i += 4 + size
		default:
			return nil, fmt.Errorf("cubin: .nv.info.%s: unknown attribute format %d", kernel, format)
		}
	}
	out := make([]Param, n)
	for ord := range out {
		p, ok := byOrd[ord]
		if !ok {
			return nil, fmt.Errorf("cubin: .nv.info.%s: no KPARAM_INFO for parameter %d", kernel, ord)
		}
		out[ord] = p
	}
	return out, nil
}
