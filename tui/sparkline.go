package tui

var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkChar maps v in [0, hi] to a block character; 0 and below give the
// lowest block, so a value is always visible.
func sparkChar(v, hi int) rune {
	if hi <= 0 || v <= 0 {
		return sparkBlocks[0]
	}
	i := v * (len(sparkBlocks) - 1) / hi
	return sparkBlocks[min(i, len(sparkBlocks)-1)]
}

// sparkline renders vals into width cells, each cell the maximum of its
// bucket, scaled against the largest value. Negative values (no data) show
// as spaces.
func sparkline(vals []int, width int) string {
	if width <= 0 || len(vals) == 0 {
		return ""
	}
	hi := 0
	for _, v := range vals {
		hi = max(hi, v)
	}
	n := min(width, len(vals))
	out := make([]rune, n)
	for c := range n {
		lo, up := c*len(vals)/n, (c+1)*len(vals)/n
		best := -1
		for _, v := range vals[lo:max(up, lo+1)] {
			best = max(best, v)
		}
		if best < 0 {
			out[c] = ' '
		} else {
			out[c] = sparkChar(best, hi)
		}
	}
	return string(out)
}
