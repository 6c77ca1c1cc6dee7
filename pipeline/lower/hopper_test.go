package lower

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/nvtools"
	"orilab/pipeline/ptx"
)

// lowerErr parses and lowers src, which must parse and check cleanly, and
// returns the lowering error's text ("" when it lowers).
func lowerErr(t *testing.T, src string) string {
	t.Helper()
	pm, err := ptx.Parse("k.ptx", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	if _, err := Lower(pm, Options{}); err != nil {
		return err.Error()
	}
	return ""
}

// hopperKernel wraps one statement in an sm_90a kernel with the registers
// and the mbarrier the cases below name.
func hopperKernel(version, stmt string) string {
	return ".version " + version + `
.target sm_90a
.address_size 64
.entry k(.param .u64 A)
{
.reg .b32 %r<9>;
.reg .b64 %rd<9>;
.reg .f32 %f<9>;
.reg .pred %p<3>;
.shared .align 8 .b64 bar;
` + stmt + `
ret;
}
`
}

// TestHopperFeaturesAreUnsupported checks that each warp-specialized Hopper
// instruction, valid PTX that ptxas 13.0 accepts for sm_90a, is refused by
// name with its family rather than with a parse or "not implemented" error.
func TestHopperFeaturesAreUnsupported(t *testing.T) {
	cases := []struct{ version, stmt, want string }{
		{"8.0", "wgmma.fence.sync.aligned;", "unsupported: wgmma.fence.sync.aligned (sm_90a warpgroup MMA)"},
		{"8.0", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, 1, 1, 1, 0, 0;",
			"unsupported: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 (sm_90a warpgroup MMA)"},
		{"8.0", "wgmma.commit_group.sync.aligned;", "unsupported: wgmma.commit_group.sync.aligned (sm_90a warpgroup MMA)"},
		{"8.0", "wgmma.wait_group.sync.aligned 0;", "unsupported: wgmma.wait_group.sync.aligned (sm_90a warpgroup MMA)"},
		{"8.0", "setmaxnreg.inc.sync.aligned.u32 232;", "unsupported: setmaxnreg.inc.sync.aligned.u32 (sm_90a warpgroup register reallocation)"},
		{"8.0", "mbarrier.init.shared.b64 [bar], 1;", "unsupported: mbarrier.init.shared.b64 (mbarrier asynchronous barriers)"},
		{"8.0", "mbarrier.arrive.shared.b64 %rd3, [bar];", "unsupported: mbarrier.arrive.shared.b64 (mbarrier asynchronous barriers)"},
		{"8.0", "mbarrier.try_wait.shared.b64 %p1, [bar], %rd3;", "unsupported: mbarrier.try_wait.shared.b64 (mbarrier asynchronous barriers)"},
		{"8.0", "cp.async.mbarrier.arrive.shared.b64 [bar];", "unsupported: cp.async.mbarrier.arrive.shared.b64 (mbarrier asynchronous barriers)"},
		{"8.0", "fence.mbarrier_init.release.cluster;", "unsupported: fence.mbarrier_init.release.cluster (mbarrier asynchronous barriers)"},
		{"8.0", "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [bar], [%rd1, {%r1, %r2}], [bar];",
			"unsupported: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes (sm_90 tensor memory accelerator bulk copies)"},
		{"8.0", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [bar], [%rd1], 16, [bar];",
			"unsupported: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (sm_90 tensor memory accelerator bulk copies)"},
		{"8.0", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [bar], 16;",
			"unsupported: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 (sm_90 tensor memory accelerator bulk copies)"},
		{"8.0", "cp.async.bulk.prefetch.L2.global [%rd1], 16;", "unsupported: cp.async.bulk.prefetch.L2.global (sm_90 tensor memory accelerator bulk copies)"},
		{"8.3", "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
			"unsupported: tensormap.replace.tile.global_address.global.b1024.b64 (sm_90 tensor memory accelerator bulk copies)"},
		{"8.0", "barrier.cluster.arrive;", "unsupported: barrier.cluster.arrive (sm_90 thread-block clusters)"},
		{"8.0", "barrier.cluster.wait;", "unsupported: barrier.cluster.wait (sm_90 thread-block clusters)"},
		{"8.0", "mapa.shared::cluster.u32 %r4, %r3, 1;", "unsupported: mapa.shared::cluster.u32 (sm_90 thread-block clusters)"},
		{"8.0", "getctarank.shared::cluster.u32 %r1, %r2;", "unsupported: getctarank.shared::cluster.u32 (sm_90 thread-block clusters)"},
		{"8.0", "ld.shared::cluster.u32 %r1, [%r2];", "unsupported: ld.shared::cluster.u32 (sm_90 thread-block clusters)"},
		{"8.1", "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd1], %r1, [bar];",
			"unsupported: st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 (sm_90 thread-block clusters)"},
		{"8.1", "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd1], %r1, [bar];",
			"unsupported: red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 (sm_90 thread-block clusters)"},
		{"8.0", "mov.u32 %r3, %cluster_ctarank;", "unsupported: the special register %cluster_ctarank (sm_90 thread-block clusters)"},
		{"8.0", "mov.u32 %r3, %clusterid.x;", "unsupported: the special register %clusterid (sm_90 thread-block clusters)"},
		{"8.0", "fence.proxy.async;", "unsupported: fence.proxy.async (sm_90 asynchronous proxy)"},
		{"8.0", "griddepcontrol.wait;", "unsupported: griddepcontrol.wait (sm_90 programmatic dependent launch)"},
	}
	for _, tc := range cases {
		got, _, _ := strings.Cut(lowerErr(t, hopperKernel(tc.version, tc.stmt)), "\n")
		want := "k.ptx:11:"
		if i := strings.Index(got, ": error: "); i < 0 || !strings.HasPrefix(got, want) || got[i+len(": error: "):] != tc.want {
			t.Errorf("%s\n got: %s\nwant: k.ptx:11:COL: error: %s", tc.stmt, got, tc.want)
		}
	}
	// Each case is valid PTX: ptxas 13.0 compiles it for sm_90a.
	t.Run("ptxas", func(t *testing.T) {
		ptxas := nvtools.Require(t, nvtools.Ptxas)
		dir := t.TempDir()
		for _, tc := range cases {
			f := filepath.Join(dir, "k.ptx")
			if err := os.WriteFile(f, []byte(hopperKernel(tc.version, tc.stmt)), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(ptxas, "-arch", "sm_90a", "-o", filepath.Join(dir, "k.cubin"), f).CombinedOutput(); err != nil {
				t.Errorf("ptxas rejects %s: %v\n%s", tc.stmt, err, out)
			}
		}
	})
	// The bulk-group bookkeeping with nothing in flight still lowers.
	if got := lowerErr(t, hopperKernel("8.0", "cp.async.bulk.commit_group;")); got != "" {
		t.Errorf("cp.async.bulk.commit_group: %s", got)
	}
}
