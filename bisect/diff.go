package bisect

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// UnifiedDiff renders a line diff of a and b in unified form with ctx lines
// of context. Ori prints every instruction with its ID (#12), and IDs
// survive in-place rewrites, so a rewritten instruction lines up with its
// old self as a -/+ pair.
func UnifiedDiff(a, b, nameA, nameB string, ctx int) string {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	type line struct {
		op   byte
		text string
	}
	var all []line
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		text := strings.TrimSuffix(d.Text, "\n")
		for _, l := range strings.Split(text, "\n") {
			all = append(all, line{op, l})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	// Group the changes into hunks with ctx lines of context.
	na, nb := 0, 0 // lines of a and b before index i
	i := 0
	for i < len(all) {
		if all[i].op == ' ' {
			na++
			nb++
			i++
			continue
		}
		start := i
		for k := 0; k < ctx && start > 0 && all[start-1].op == ' '; k++ {
			start--
		}
		end := i
		for {
			for end < len(all) && all[end].op != ' ' {
				end++
			}
			run := 0
			for end+run < len(all) && all[end+run].op == ' ' {
				run++
			}
			if end+run < len(all) && run <= 2*ctx {
				end += run
				continue
			}
			end += min(run, ctx)
			break
		}
		sa, sb := na-(i-start)+1, nb-(i-start)+1
		la, lb := 0, 0
		for _, l := range all[start:end] {
			if l.op != '+' {
				la++
			}
			if l.op != '-' {
				lb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", sa, la, sb, lb)
		for _, l := range all[start:end] {
			out.WriteByte(l.op)
			out.WriteString(l.text)
			out.WriteByte('\n')
		}
		for _, l := range all[i:end] {
			if l.op != '+' {
				na++
			}
			if l.op != '-' {
				nb++
			}
		}
		i = end
	}
	return out.String()
}
