package ptx

// specialRegs lists the predefined read-only special registers. The value
// says which component suffixes the register accepts: "xyz" for the
// three-dimensional ones (%tid.x), "" for scalars. minSM gates registers that
// only exist on newer targets (cluster registers need sm_90).
var specialRegs = map[string]struct {
	comps string
	minSM int
}{
	"%tid": {"xyzw", 0}, "%ntid": {"xyzw", 0}, "%ctaid": {"xyzw", 0}, "%nctaid": {"xyzw", 0},
	"%laneid": {"", 0}, "%warpid": {"", 0}, "%nwarpid": {"", 0}, "%smid": {"", 0}, "%nsmid": {"", 0},
	"%gridid":      {"", 0},
	"%lanemask_eq": {"", 0}, "%lanemask_le": {"", 0}, "%lanemask_lt": {"", 0},
	"%lanemask_ge": {"", 0}, "%lanemask_gt": {"", 0},
	"%clock": {"", 0}, "%clock_hi": {"", 0}, "%clock64": {"", 0},
	"%globaltimer": {"", 0}, "%globaltimer_lo": {"", 0}, "%globaltimer_hi": {"", 0},
	"%total_smem_size": {"", 0}, "%aggr_smem_size": {"", 0}, "%dynamic_smem_size": {"", 0},
	"%reserved_smem_offset_begin": {"", 0}, "%reserved_smem_offset_end": {"", 0},
	"%reserved_smem_offset_cap": {"", 0}, "%reserved_smem_offset_0": {"", 0}, "%reserved_smem_offset_1": {"", 0},
	"%current_graph_exec":  {"", 0},
	"%is_explicit_cluster": {"", 90}, "%clusterid": {"xyzw", 90}, "%nclusterid": {"xyzw", 90},
	"%cluster_ctaid": {"xyzw", 90}, "%cluster_nctaid": {"xyzw", 90},
	"%cluster_ctarank": {"", 90}, "%cluster_nctarank": {"", 90},
}

// isSpecialReg reports whether name is a special register, including the
// numbered families %envreg0..31, %pm0..7 and %pm0_64..%pm7_64.
func isSpecialReg(name string) (comps string, minSM int, ok bool) {
	if s, found := specialRegs[name]; found {
		return s.comps, s.minSM, true
	}
	if n, ok := numberedSuffix(name, "%envreg"); ok && n < 32 {
		return "", 0, true
	}
	if n, ok := numberedSuffix(name, "%pm"); ok && n < 8 {
		return "", 0, true
	}
	if len(name) == 7 && name[:3] == "%pm" && name[3] >= '0' && name[3] <= '7' && name[4:] == "_64" {
		return "", 0, true
	}
	return "", 0, false
}

// numberedSuffix parses name as prefix followed by a decimal number without
// leading zeros.
func numberedSuffix(name, prefix string) (int, bool) {
	if len(name) <= len(prefix) || name[:len(prefix)] != prefix {
		return 0, false
	}
	digits := name[len(prefix):]
	if len(digits) > 1 && digits[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) || n > 1<<24 {
			return 0, false
		}
		n = n*10 + int(digits[i]-'0')
	}
	return n, true
}
