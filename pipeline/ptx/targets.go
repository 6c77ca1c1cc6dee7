package ptx

import "strings"

// ptxVersions is every .version ptxas 13.0 accepts, as major*10+minor:
// 1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0-5.1, 6.0-6.5, 7.0-7.8, 8.0-8.8
// and 9.0 (probed: every other x.y up to 9.0 is "Unsupported .version").
var ptxVersions = func() map[int]bool {
	m := map[int]bool{}
	for major, last := range map[int]int{1: 5, 2: 3, 3: 2, 4: 3, 5: 1, 6: 5, 7: 8, 8: 8, 9: 0} {
		for minor := 0; minor <= last; minor++ {
			m[major*10+minor] = true
		}
	}
	return m
}()

// targetMinPTX maps each .target ptxas 13.0 knows to the oldest .version
// that may declare it (probed with ptxas over every pair: "PTX .version
// 7.0 does not support .target sm_90"). compute_NN names the same
// architecture as sm_NN. sm_40, sm_76 and sm_101 (renamed sm_110) are
// unknown to ptxas 13.
var targetMinPTX = map[string]int{
	"sm_10": 10, "sm_11": 10, "sm_12": 12, "sm_13": 12, "sm_20": 20, "sm_21": 20,
	"sm_30": 30, "sm_32": 40, "sm_35": 31, "sm_37": 41, "sm_50": 40, "sm_52": 41,
	"sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50, "sm_70": 51, "sm_72": 61,
	"sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_88": 73, "sm_89": 78,
	"sm_90": 78, "sm_90a": 80, "sm_100": 86, "sm_100a": 86, "sm_100f": 88,
	"sm_103": 88, "sm_103a": 88, "sm_103f": 88, "sm_110": 90, "sm_110a": 90,
	"sm_110f": 90, "sm_120": 87, "sm_120a": 87, "sm_120f": 88, "sm_121": 88,
	"sm_121a": 88, "sm_121f": 88,
}

// targetOptions are the .target entries that are not architectures.
var targetOptions = map[string]bool{
	"texmode_unified": true, "texmode_independent": true, "debug": true, "map_f64_to_f32": true,
}

// headerTargets checks the .version and .target values and their pairing.
func (c *checker) headerTargets() {
	for _, it := range c.m.Items {
		d, ok := it.(*Directive)
		if !ok {
			continue
		}
		switch d.Name {
		case ".version":
			if !ptxVersions[c.m.Version.Num()] {
				c.d.errorf(d.Pos, "unsupported .version %s: ptxas 13.0 knows PTX ISA 1.0 to 9.0", c.m.Version)
			}
		case ".target":
			for _, t := range d.Args {
				if targetOptions[t] {
					continue
				}
				arch := t
				if strings.HasPrefix(arch, "compute_") {
					arch = "sm_" + arch[len("compute_"):]
				}
				min, ok := targetMinPTX[arch]
				if !ok {
					c.d.errorf(d.Pos, "unknown target %s", t)
					continue
				}
				if v := c.m.Version.Num(); v > 0 && ptxVersions[v] && v < min {
					c.d.errorf(d.Pos, ".target %s needs .version %d.%d or later, but the module declares .version %s", t, min/10, min%10, c.m.Version)
				}
			}
		case ".address_size":
			if v := c.m.Version.Num(); v > 0 && v < 23 {
				c.d.errorf(d.Pos, ".address_size requires PTX ISA 2.3 or later, but the module declares .version %s", c.m.Version)
			}
		}
	}
}
