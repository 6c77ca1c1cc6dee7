package lower

import (
	"strings"

	"orilab/pipeline/ptx"
)

// The warp-specialized Hopper features (warpgroup MMA, the tensor memory
// accelerator's bulk copies, mbarrier-based asynchronous barriers and
// thread-block clusters) are not modelled: the simulator has no warpgroups,
// no asynchronous proxy and one CTA per cluster. The front end accepts them
// (they are valid PTX for sm_90/sm_90a), so the lowering must refuse them
// by name. hopperFeature says which family an instruction belongs to, so
// the error reads "unsupported: wgmma.mma_async.sync.aligned... (sm_90a
// warpgroup MMA)" rather than a generic "not implemented" or, worse, a
// semantic error about an unknown name.

// Family descriptions, the parenthesized part of the error.
const (
	hopperWGMMA    = "sm_90a warpgroup MMA"
	hopperSetmax   = "sm_90a warpgroup register reallocation"
	hopperTMA      = "sm_90 tensor memory accelerator bulk copies"
	hopperMbarrier = "mbarrier asynchronous barriers"
	hopperCluster  = "sm_90 thread-block clusters"
	hopperProxy    = "sm_90 asynchronous proxy"
	hopperPDL      = "sm_90 programmatic dependent launch"
)

// hopperFeature returns the family of in when it is one of the unmodelled
// Hopper instructions, or "".
func hopperFeature(in *ptx.Instr) string {
	mods := strings.Join(in.Mods, "")
	switch in.Op {
	case "wgmma":
		return hopperWGMMA
	case "setmaxnreg":
		return hopperSetmax
	case "mbarrier":
		return hopperMbarrier
	case "tensormap", "multimem":
		return hopperTMA
	case "mapa", "getctarank":
		return hopperCluster
	case "griddepcontrol":
		return hopperPDL
	case "cp":
		switch {
		case strings.HasPrefix(mods, ".async.bulk"), strings.HasPrefix(mods, ".reduce.async.bulk"):
			// cp.async.bulk.commit_group and wait_group with nothing in
			// flight stay accepted: they order no copies orilab makes.
			if mods == ".async.bulk.commit_group" || strings.HasPrefix(mods, ".async.bulk.wait_group") {
				return ""
			}
			return hopperTMA
		case strings.HasPrefix(mods, ".async.mbarrier"):
			return hopperMbarrier
		}
	case "fence":
		switch {
		case in.HasMod(".mbarrier_init"):
			return hopperMbarrier
		case in.HasMod(".proxy") && !in.HasMod(".alias"):
			return hopperProxy
		}
	case "barrier":
		if in.HasMod(".cluster") {
			return hopperCluster
		}
	case "st", "red":
		if in.HasMod(".async") {
			return hopperCluster
		}
	}
	for _, m := range in.Mods {
		if m == ".shared::cluster" {
			return hopperCluster
		}
	}
	return ""
}

// clusterSpecialRegs are the sm_90 special registers that describe the
// cluster a CTA belongs to.
var clusterSpecialRegs = map[string]bool{
	"%is_explicit_cluster": true, "%clusterid": true, "%nclusterid": true,
	"%cluster_ctaid": true, "%cluster_nctaid": true,
	"%cluster_ctarank": true, "%cluster_nctarank": true,
}

// hopperUnsupported is the error for an instruction of family f.
func (c *fn) hopperUnsupported(in *ptx.Instr, f string) error {
	return c.l.unsupported(in.OpPos, "%s%s (%s)", in.Op, strings.Join(in.Mods, ""), f)
}
