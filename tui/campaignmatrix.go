package tui

import (
	"fmt"
	"strconv"
	"strings"

	"orilab/faultinject"
)

// The campaign's detection matrix as the Fault pane shows it. orilab
// inject --trials prints faultinject.Matrix.Table, 98 columns wide with
// one row per kind named in full; the right pane is 46 columns at 80x24,
// where that table was cut after "hazard". This one has three-letter
// outcome columns and kind numbers, with legends under it, so it fits in
// 45 columns while the counts have at most three digits (a campaign from
// the pane has campaignTrials of them). A pane wide enough for the full
// table (220 columns) shows that one, as orilab inject prints it.

// matrixCols are the outcome columns, in the order of Matrix.Table.
var matrixCols = []struct {
	o    faultinject.Outcome
	head string
}{
	{faultinject.CaughtStructural, "str"},
	{faultinject.CaughtReachingDefs, "rdf"},
	{faultinject.CaughtHazard, "haz"},
	{faultinject.CaughtMismatch, "mis"},
	{faultinject.CaughtMemFault, "mem"},
	{faultinject.CaughtHang, "hng"},
	{faultinject.Masked, "msk"},
	{faultinject.CompilerCrash, "crs"},
}

// matrixLegend spells out the abbreviations.
const matrixLegend = "verifiers: str structural, rdf reaching-defs, haz hazard; execution: mis mismatch, mem memory fault, hng hang; msk masked, crs crash"

// compactMatrix renders m as described above: the table, then a line
// naming the kinds by number.
func compactMatrix(m *faultinject.Matrix) string {
	rows := [][]string{{"kind"}}
	for _, c := range matrixCols {
		rows[0] = append(rows[0], c.head)
	}
	rows[0] = append(rows[0], "tot", "ver%")
	var kinds []string
	row := func(label string, k faultinject.Kind) {
		r := []string{label}
		total, caught := 0, 0
		for _, c := range matrixCols {
			n := 0
			for kk := faultinject.Kind(1); kk <= faultinject.NumKinds; kk++ {
				if k == 0 || kk == k {
					n += m.Counts[kk][c.o]
				}
			}
			total += n
			if c.o.ByVerifier() {
				caught += n
			}
			r = append(r, strconv.Itoa(n))
		}
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(caught) / float64(total)
		}
		rows = append(rows, append(r, strconv.Itoa(total), strconv.FormatFloat(pct, 'f', 0, 64)))
	}
	for k := faultinject.Kind(1); k <= faultinject.NumKinds; k++ {
		if m.Total(k) > 0 {
			row(strconv.Itoa(int(k)), k)
			kinds = append(kinds, fmt.Sprintf("%d %s", k, k))
		}
	}
	row("all", 0)
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r[0] + strings.Repeat(" ", width[0]-len(r[0])))
		for i, c := range r[1:] {
			b.WriteString(strings.Repeat(" ", 1+width[i+1]-len(c)) + c)
		}
		b.WriteByte('\n')
	}
	if len(kinds) > 0 {
		b.WriteString("kinds: " + strings.Join(kinds, ", ") + "\n")
	}
	return b.String()
}

// matrixWidth is the width of the widest matrix line of a campaign
// report (its lines aligned with runs of spaces), 0 for none.
func matrixWidth(report string) int {
	w := 0
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "kind ") || (strings.Contains(l, "  ") && !strings.HasPrefix(l, " ")) {
			w = max(w, len(l))
		}
	}
	return w
}
