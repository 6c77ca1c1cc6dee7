package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"
)

// ErrNoDriver wraps every failure to find or start the CUDA driver: no
// libcuda, a library without the entry points, or cuInit failing (no
// device, driver not loaded).
var ErrNoDriver = errors.New("no CUDA driver")

// Driver is a loaded libcuda with the primary context of device 0
// current on the calling OS thread.
type Driver struct {
	fn     funcs
	dev    int32
	ctx    uintptr
	thread bool // the goroutine is locked to its OS thread
}

// funcs are the driver entry points, as purego binds them: every handle
// is a uintptr, CUresult an int32.
type funcs struct {
	cuInit                    func(flags uint32) int32
	cuDeviceGet               func(dev *int32, ordinal int32) int32
	cuDeviceGetAttribute      func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuCtxSynchronize          func() int32
	cuModuleLoadData          func(mod *uintptr, image unsafe.Pointer) int32
	cuModuleUnload            func(mod uintptr) int32
	cuModuleGetFunction       func(f *uintptr, mod uintptr, name *byte) int32
	cuMemAlloc                func(p *uint64, size uint64) int32
	cuMemFree                 func(p uint64) int32
	cuMemcpyHtoD              func(dst uint64, src unsafe.Pointer, n uint64) int32
	cuMemcpyDtoH              func(dst unsafe.Pointer, src uint64, n uint64) int32
	cuLaunchKernel            func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params unsafe.Pointer, extra unsafe.Pointer) int32
	cuGetErrorName            func(res int32, name **byte) int32
}

// symbols pairs each entry point with its libcuda symbol.
func (f *funcs) symbols() []struct {
	ptr  any
	name string
} {
	return []struct {
		ptr  any
		name string
	}{
		{&f.cuInit, "cuInit"}, {&f.cuDeviceGet, "cuDeviceGet"}, {&f.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
		{&f.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"}, {&f.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
		{&f.cuCtxSetCurrent, "cuCtxSetCurrent"}, {&f.cuCtxSynchronize, "cuCtxSynchronize"},
		{&f.cuModuleLoadData, "cuModuleLoadData"}, {&f.cuModuleUnload, "cuModuleUnload"},
		{&f.cuModuleGetFunction, "cuModuleGetFunction"}, {&f.cuMemAlloc, "cuMemAlloc_v2"}, {&f.cuMemFree, "cuMemFree_v2"},
		{&f.cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&f.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&f.cuLaunchKernel, "cuLaunchKernel"}, {&f.cuGetErrorName, "cuGetErrorName"},
	}
}

// Library is the libcuda file Load opens: $ORILAB_LIBCUDA, else the
// driver's soname.
func Library() string {
	if p := os.Getenv("ORILAB_LIBCUDA"); p != "" {
		return p
	}
	return "libcuda.so.1"
}

// Load opens libcuda, initialises it and makes device 0's primary context
// current. The calling goroutine stays locked to its OS thread until
// Close (a context is current per thread).
func Load() (*Driver, error) {
	d := &Driver{}
	if err := bind(&d.fn, Library()); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	if r := d.fn.cuInit(0); r != 0 {
		return nil, fmt.Errorf("%w: cuInit: %s", ErrNoDriver, d.errName(r))
	}
	if r := d.fn.cuDeviceGet(&d.dev, 0); r != 0 {
		return nil, fmt.Errorf("%w: cuDeviceGet(0): %s", ErrNoDriver, d.errName(r))
	}
	runtime.LockOSThread()
	d.thread = true
	if r := d.fn.cuDevicePrimaryCtxRetain(&d.ctx, d.dev); r != 0 {
		d.Close()
		return nil, fmt.Errorf("cuDevicePrimaryCtxRetain: %s", d.errName(r))
	}
	if r := d.fn.cuCtxSetCurrent(d.ctx); r != 0 {
		d.Close()
		return nil, fmt.Errorf("cuCtxSetCurrent: %s", d.errName(r))
	}
	return d, nil
}

// Close releases the context and the thread.
func (d *Driver) Close() {
	if d.ctx != 0 {
		d.fn.cuDevicePrimaryCtxRelease(d.dev)
		d.ctx = 0
	}
	if d.thread {
		runtime.UnlockOSThread()
		d.thread = false
	}
}

// errName is the driver's name for a CUresult (CUDA_ERROR_...).
func (d *Driver) errName(r int32) string {
	var p *byte
	if d.fn.cuGetErrorName == nil || d.fn.cuGetErrorName(r, &p) != 0 || p == nil {
		return fmt.Sprintf("CUresult %d", r)
	}
	return fmt.Sprintf("%s (%d)", cString(p), r)
}

func (d *Driver) check(what string, r int32) error {
	if r != 0 {
		return fmt.Errorf("%s: %s", what, d.errName(r))
	}
	return nil
}

// cString reads a NUL-terminated C string.
func cString(p *byte) string {
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// ComputeCapability returns the device's SM number (90 for an H100).
func (d *Driver) ComputeCapability() (int, error) {
	const major, minor = 75, 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR
	var ma, mi int32
	if err := d.check("cuDeviceGetAttribute", d.fn.cuDeviceGetAttribute(&ma, major, d.dev)); err != nil {
		return 0, err
	}
	if err := d.check("cuDeviceGetAttribute", d.fn.cuDeviceGetAttribute(&mi, minor, d.dev)); err != nil {
		return 0, err
	}
	return int(ma)*10 + int(mi), nil
}

// Module is a loaded module.
type Module struct {
	d   *Driver
	mod uintptr
}

// LoadModule loads a cubin, or PTX text (which the driver compiles with
// its JIT). PTX gets the NUL terminator the driver needs.
func (d *Driver) LoadModule(image []byte, ptx bool) (*Module, error) {
	buf := append([]byte(nil), image...)
	if ptx {
		buf = append(buf, 0)
	}
	m := &Module{d: d}
	if err := d.check("cuModuleLoadData", d.fn.cuModuleLoadData(&m.mod, unsafe.Pointer(&buf[0]))); err != nil {
		return nil, err
	}
	runtime.KeepAlive(buf)
	return m, nil
}

// Unload unloads the module.
func (m *Module) Unload() { m.d.fn.cuModuleUnload(m.mod) }

// Alloc allocates device memory holding data (at least one byte).
func (d *Driver) Alloc(data []byte) (uint64, error) {
	var p uint64
	if err := d.check("cuMemAlloc", d.fn.cuMemAlloc(&p, uint64(max(len(data), 1)))); err != nil {
		return 0, err
	}
	if len(data) > 0 {
		if err := d.check("cuMemcpyHtoD", d.fn.cuMemcpyHtoD(p, unsafe.Pointer(&data[0]), uint64(len(data)))); err != nil {
			d.fn.cuMemFree(p)
			return 0, err
		}
	}
	return p, nil
}

// Read copies n bytes back from device memory at p.
func (d *Driver) Read(p uint64, n int) ([]byte, error) {
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	return out, d.check("cuMemcpyDtoH", d.fn.cuMemcpyDtoH(unsafe.Pointer(&out[0]), p, uint64(n)))
}

// Free frees device memory.
func (d *Driver) Free(p uint64) { d.fn.cuMemFree(p) }

// Launch runs kernel name of m on grid×block threads with the packed
// parameter buffer params and waits for it.
func (m *Module) Launch(name string, grid, block [3]int, shared int, params []byte) error {
	d := m.d
	cname := append([]byte(name), 0)
	var f uintptr
	if err := d.check("cuModuleGetFunction("+name+")", d.fn.cuModuleGetFunction(&f, m.mod, &cname[0])); err != nil {
		return err
	}
	// CU_LAUNCH_PARAM_BUFFER_POINTER (1), CU_LAUNCH_PARAM_BUFFER_SIZE
	// (2), CU_LAUNCH_PARAM_END (0).
	buf := append([]byte(nil), params...)
	if len(buf) == 0 {
		buf = []byte{0}
	}
	size := uint64(len(params))
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&buf[0])
	pin.Pin(&size)
	// The array holds the addresses as integers; pinning keeps the
	// buffer and the size where they are, and alive, until Unpin.
	extra := []uintptr{1, uintptr(unsafe.Pointer(&buf[0])), 2, uintptr(unsafe.Pointer(&size)), 0}
	pin.Pin(&extra[0])
	r := d.fn.cuLaunchKernel(f, uint32(grid[0]), uint32(grid[1]), uint32(grid[2]), uint32(block[0]), uint32(block[1]), uint32(block[2]),
		uint32(shared), 0, nil, unsafe.Pointer(&extra[0]))
	runtime.KeepAlive(buf)
	if err := d.check("cuLaunchKernel", r); err != nil {
		return err
	}
	return d.check("cuCtxSynchronize", d.fn.cuCtxSynchronize())
}
