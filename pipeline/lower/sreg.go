package lower

import (
	"orilab/pipeline/ori"
	"orilab/pipeline/ptx"
)

// specialSource says how a PTX special register is read: from an SR_*
// register with S2R (CS2R for 64-bit ones), or from constant bank 0.
type specialSource struct {
	sr    string // SR name, with a component placeholder "%c" for .x/.y/.z
	cb    int64  // bank-0 offset (launch dimensions), or -1
	wide  bool   // 64-bit (CS2R)
	comps bool   // takes a .x/.y/.z component
}

var specialRegs = map[string]specialSource{
	"%tid":               {sr: "SR_TID", cb: -1, comps: true},
	"%ctaid":             {sr: "SR_CTAID", cb: -1, comps: true},
	"%ntid":              {cb: cbNtid, comps: true},
	"%nctaid":            {cb: cbNctaid, comps: true},
	"%laneid":            {sr: "SR_LANEID", cb: -1},
	"%warpid":            {sr: "SR_WARPID", cb: -1},
	"%nwarpid":           {sr: "SR_NWARPID", cb: -1},
	"%smid":              {sr: "SR_SMID", cb: -1},
	"%nsmid":             {sr: "SR_NSMID", cb: -1},
	"%gridid":            {sr: "SR_GRIDID", cb: -1, wide: true},
	"%lanemask_eq":       {sr: "SR_EQMASK", cb: -1},
	"%lanemask_lt":       {sr: "SR_LTMASK", cb: -1},
	"%lanemask_le":       {sr: "SR_LEMASK", cb: -1},
	"%lanemask_gt":       {sr: "SR_GTMASK", cb: -1},
	"%lanemask_ge":       {sr: "SR_GEMASK", cb: -1},
	"%clock":             {sr: "SR_CLOCKLO", cb: -1},
	"%clock_hi":          {sr: "SR_CLOCKHI", cb: -1},
	"%clock64":           {sr: "SR_CLOCKLO", cb: -1, wide: true},
	"%globaltimer":       {sr: "SR_GLOBALTIMERLO", cb: -1, wide: true},
	"%globaltimer_lo":    {sr: "SR_GLOBALTIMERLO", cb: -1},
	"%globaltimer_hi":    {sr: "SR_GLOBALTIMERHI", cb: -1},
	"%dynamic_smem_size": {cb: cbDynSmem},
	"%total_smem_size":   {cb: cbTotalSmem},
}

func specialReg(name string) (specialSource, bool) {
	s, ok := specialRegs[name]
	return s, ok
}

// readSpecial returns an operand holding the special register o.
func (c *fn) readSpecial(o *ptx.Operand) (ori.Operand, error) {
	s, _ := specialReg(o.Name)
	comp := 0
	if s.comps {
		switch o.Comp {
		case ".x", "":
		case ".y":
			comp = 1
		case ".z":
			comp = 2
		default:
			return ori.Operand{}, c.l.unsupported(o.Pos, "component %s of %s", o.Comp, o.Name)
		}
	}
	if s.cb >= 0 {
		return ori.CBank(0, s.cb+int64(4*comp)), nil
	}
	name := s.sr
	if s.comps {
		name += "." + string("XYZ"[comp])
	}
	if s.wide {
		r := c.newReg(2)
		c.emit(ori.OpCS2R, nil, []ori.Operand{ori.R(r)}, ori.SR(name))
		return ori.R(r), nil
	}
	r := c.newReg(1)
	c.emit(ori.OpS2R, nil, []ori.Operand{ori.R(r)}, ori.SR(name))
	return ori.R(r), nil
}
