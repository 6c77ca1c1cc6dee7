package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The PTX column of the IR pane: S shows the PTX source beside the IR,
// aligned through the line numbers the IR keeps ("; line 190"): the
// column follows the cursor, centred on the PTX line its instruction came
// from and marked with >. : jumps the other way, from a PTX line number
// to the first instruction made from it (in the cursor's function when it
// has one, else in any).

// rowLine is the PTX line a row names, or 0.
func rowLine(r irRow) int {
	for _, t := range []string{r.text, r.right, r.left} {
		if m := srcLine().FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	return 0
}

// cursorPTXLine is the PTX line of the cursor's row, or of the nearest
// row above it that has one (labels and headers have none).
func (v *IRView) cursorPTXLine() int {
	for i := min(v.cur, len(v.rows)-1); i >= 0; i-- {
		if n := rowLine(v.rows[i]); n > 0 {
			return n
		}
	}
	return 0
}

// srcWidth is the width of the PTX column, 0 when it is not shown.
func (v *IRView) srcWidth() int {
	if !v.src || v.mode == modeSide {
		return 0
	}
	return max(v.w*2/5, 10)
}

// srcLines renders the PTX column, h rows of width w, centred on line n.
func (v *IRView) srcLines(n, w, h int) []string {
	st := v.c.Styles
	src := v.c.W.Source
	out := make([]string, 0, h)
	first := max(n-h/2, 1)
	if n == 0 {
		first = 1
	}
	for l := first; l < first+h; l++ {
		if l > len(src) {
			out = append(out, strings.Repeat(" ", w))
			continue
		}
		text := fmt.Sprintf(" %4d %s", l, expandTabs(src[l-1]))
		if l == n {
			out = append(out, st.Follow.Render(fit(">"+text[1:], w)))
			continue
		}
		out = append(out, st.Dim.Render(fit(text, w)))
	}
	return out
}

// gotoPTXLine moves the cursor to the first instruction made from PTX
// line n, and says where it went.
func (v *IRView) gotoPTXLine(n int) string {
	fn := v.CursorFunc()
	best, bestLine := -1, 0
	for pass := 0; pass < 2 && best < 0; pass++ {
		for i, r := range v.rows {
			if pass == 0 && fn != "" && r.fn != fn {
				continue
			}
			l := rowLine(r)
			if l == n {
				best, bestLine = i, l
				break
			}
			if l > n && (best < 0 || l < bestLine) {
				best, bestLine = i, l
			}
		}
	}
	if best < 0 {
		return fmt.Sprintf("no instruction of this phase's IR comes from PTX line %d or later", n)
	}
	v.cur = best
	v.off = max(best-v.bodyHeight()/3, 0)
	id := lineID(strings.TrimLeft(v.rows[best].text, " +-"))
	if bestLine != n {
		return fmt.Sprintf("nothing from PTX line %d in this phase's IR; the next line that has something is %d (%s in %s)", n, bestLine, id, v.rows[best].fn)
	}
	return fmt.Sprintf("PTX line %d: %s in %s", n, id, v.rows[best].fn)
}

// updateGoto handles a key while the : prompt is open.
func (v *IRView) updateGoto(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case key.Matches(km, k.Input.Cancel):
		v.gotoing = false
		v.gotoIn.Blur()
		return nil
	case key.Matches(km, k.Input.Accept):
		v.gotoing = false
		v.gotoIn.Blur()
		n, err := strconv.Atoi(strings.TrimSpace(v.gotoIn.Value()))
		if err != nil || n < 1 {
			return cmdOf(statusMsg(fmt.Sprintf("%q is not a PTX line number", v.gotoIn.Value())))
		}
		return cmdOf(statusMsg(v.gotoPTXLine(n)))
	}
	var cmd tea.Cmd
	v.gotoIn, cmd = v.gotoIn.Update(km)
	return cmd
}
