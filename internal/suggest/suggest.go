// Package suggest finds the name a user probably meant: the one edit
// distance that the "did you mean" messages of the knob registry, the
// phase table and orilab's command dispatcher share.
package suggest

// Distance is the Levenshtein distance between a and b (byte-wise), or
// any value >= bound once it is clear the distance reaches bound (bound
// <= 0: no bound).
func Distance(a, b string, bound int) int {
	if bound > 0 {
		if d := len(a) - len(b); d >= bound || -d >= bound {
			return bound
		}
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if bound > 0 && rowMin >= bound {
			return bound
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
