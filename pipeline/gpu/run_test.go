package gpu

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orilab/internal/cuda"
	"orilab/internal/nvtools"
	"orilab/internal/testenv"
	"orilab/pipeline"
	"orilab/pipeline/ptx"
	"orilab/pipeline/spec"
)

// specs are the testdata kernel specs that launch something.
func specs(t *testing.T) []*spec.Spec {
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "kernels", "*.json"))
	var out []*spec.Spec
	for _, f := range files {
		s, err := spec.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if !s.CompileOnly {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatal("no specs under testdata/kernels")
	}
	return out
}

// cubin compiles s for arch and returns the session and its cubin (nil
// when the encoder refuses the code, the module's .target is newer, or
// the lowering refuses a construct on this target: tex_forms' bindless
// fetch on sm_90).
func cubin(t *testing.T, s *spec.Spec, arch int) (*pipeline.Session, []byte) {
	src, err := os.ReadFile(s.PTXPath)
	if err != nil {
		t.Fatal(err)
	}
	if pm, err := ptx.ParseSyntax(s.PTXPath, src); err == nil && pm.SM() > arch {
		return nil, nil // refused, as ptxas refuses a .target newer than -arch
	}
	req := pipeline.Request{Arch: arch, OptLevel: 3}
	sess, err := req.StartFile(s.PTXPath, src, pipeline.SessionControl{})
	if err != nil && strings.Contains(err.Error(), "error: unsupported: ") {
		t.Logf("%s sm_%d: %v", s.Name, arch, err)
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RunAll(); err != nil {
		t.Fatal(err)
	}
	return sess, sess.Backend().Cubin
}

// TestParamLayout: the layout read back from orilab's cubin equals the
// kernel's parameter list (what the driver-JIT launch uses), and, where
// ptxas is installed, the layout in ptxas's cubin of the same PTX; the
// packed buffer holds every argument at its offset.
func TestParamLayout(t *testing.T) {
	ptxas, _ := nvtools.Find(nvtools.Ptxas)
	checked := 0
	for _, s := range specs(t) {
		for _, arch := range []int{80, 90} {
			sess, cub := cubin(t, s, arch)
			if cub == nil {
				continue
			}
			got, err := KParamLayout(cub, s.Kernel)
			if err != nil {
				t.Fatalf("%s sm_%d: %v", s.Name, arch, err)
			}
			want := FuncLayout(sess.Module().Func(s.Kernel), arch)
			if !equal(got, want) {
				t.Errorf("%s sm_%d: the cubin's KPARAM_INFO gives %v, the kernel's parameters %v", s.Name, arch, got, want)
			}
			if ptxas != "" {
				out := filepath.Join(t.TempDir(), "p.cubin")
				if msg, err := exec.Command(ptxas, "-arch", "sm_"+itoa(arch), "-o", out, s.PTXPath).CombinedOutput(); err == nil {
					theirs, _ := os.ReadFile(out)
					pl, err := KParamLayout(theirs, s.Kernel)
					if err != nil {
						t.Errorf("%s sm_%d: ptxas's cubin: %v", s.Name, arch, err)
					} else if !equal(pl, got) {
						t.Errorf("%s sm_%d: ptxas's KPARAM_INFO gives %v, orilab's %v", s.Name, arch, pl, got)
					}
				} else {
					t.Logf("%s sm_%d: ptxas: %s", s.Name, arch, msg)
				}
			}
			args := make([][]byte, len(got))
			for i, p := range got {
				args[i] = make([]byte, p.Size)
				for k := range args[i] {
					args[i][k] = byte(i + 1)
				}
			}
			buf, err := ParamBuffer(got, args)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range got {
				for k := 0; k < p.Size; k++ {
					if buf[p.Offset+k] != byte(i+1) {
						t.Fatalf("%s: byte %d of the buffer is %d, want argument %d's", s.Name, p.Offset+k, buf[p.Offset+k], i)
					}
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no kernel's cubin was written")
	}
}

func equal(a, b []Param) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestParamBufferErrors: a wrong argument count or size is an error
// naming it, never a short or misplaced buffer.
func TestParamBufferErrors(t *testing.T) {
	layout := []Param{{0, 8}, {8, 4}}
	for _, c := range []struct {
		args [][]byte
		want string
	}{
		{[][]byte{make([]byte, 8)}, "1 arguments for a kernel with 2 parameters"},
		{[][]byte{make([]byte, 8), make([]byte, 8)}, "parameter 1 is 4 bytes, the argument 8"},
	} {
		_, err := ParamBuffer(layout, c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("ParamBuffer: %v, want %q", err, c.want)
		}
	}
	buf, err := ParamBuffer(layout, [][]byte{{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12}})
	if err != nil || string(buf) != "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c" {
		t.Errorf("ParamBuffer: % x, %v", buf, err)
	}
}

// TestRunWithoutDriver: with no libcuda (ORILAB_LIBCUDA names a file
// that does not exist) Run says there is no driver.
func TestRunWithoutDriver(t *testing.T) {
	t.Setenv("ORILAB_LIBCUDA", filepath.Join(t.TempDir(), "libcuda.so.1"))
	_, err := Run(specs(t)[0], Options{})
	if !errors.Is(err, cuda.ErrNoDriver) {
		t.Fatalf("Run: %v, want an error wrapping cuda.ErrNoDriver", err)
	}
	if !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Errorf("the error %q does not name the library", err)
	}
}
