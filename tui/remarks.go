package tui

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/pipeline/opt"
)

// Remarks in the workbench: what the selected phase's passes decided and
// why they declined (opt.Remark, kept in the phase's snapshot), the same
// remarks orilab compile --remarks prints. The timeline marks a phase
// with remarks with an "r" in its gutter, the message line summarises
// them when nothing else is to be said, and R lists them in the IR pane,
// where enter moves the cursor to the loop a remark is about.

// markRemarks stands in the timeline's gutter (where > marks the
// selection) of a phase that has remarks.
const markRemarks = "r"

// snapRemarks returns the remarks of the selected phase (nil without).
func (w *Workbench) snapRemarks(i int) []opt.Remark {
	if s := w.Snap(i); s != nil {
		return s.Remarks
	}
	return nil
}

// remarkSummary is the message line for a phase with remarks: how many,
// and the first declined one (the question a remark answers is why a
// phase changed nothing).
func remarkSummary(s *pipeline.Snapshot) string {
	if s == nil || len(s.Remarks) == 0 {
		return ""
	}
	first := s.Remarks[0]
	for _, r := range s.Remarks {
		if !r.Applied {
			first = r
			break
		}
	}
	return fmt.Sprintf("%s (R lists %s): %s", s.Status, plural(len(s.Remarks), "remark"), first)
}

// openRemarks opens the remarks list of the selected phase in the IR
// pane and says what it holds.
func (v *IRView) openRemarks() string {
	w := v.c.W
	rs := w.snapRemarks(w.Sel)
	name := pipeline.PhaseTable[w.Sel].Name
	if len(rs) == 0 {
		return fmt.Sprintf("#%d %s made no remarks (only phases that weigh rewrites, such as OriLoopUnrolling, do)", w.Sel, name)
	}
	v.picking, v.remarking, v.pick = false, true, 0
	return fmt.Sprintf("#%d %s: %s (enter goes to the place, esc closes)", w.Sel, name, plural(len(rs), "remark"))
}

// updateRemarks handles a key while the remarks list is open.
func (v *IRView) updateRemarks(km tea.KeyMsg) tea.Cmd {
	if km.Type == tea.KeyRunes && len(km.Runes) > 1 {
		// Keys that arrived together (see Model.update): one at a time.
		var cmds []tea.Cmd
		for _, r := range km.Runes {
			cmds = append(cmds, v.updateRemarks(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Sequence(cmds...)
	}
	k := v.c.Keys
	rs := v.c.W.snapRemarks(v.c.W.Sel)
	switch {
	case contains(k.Input.Cancel, km.String()), contains(k.Global.Remarks, km.String()):
		v.remarking = false
		return cmdOf(statusMsg("remarks closed"))
	case contains(k.Input.Accept, km.String()):
		v.remarking = false
		if v.pick >= len(rs) {
			return nil
		}
		return cmdOf(statusMsg(v.gotoRemark(rs[v.pick])))
	}
	if c, ok := k.List.move(km.String(), v.pick, len(rs), max(v.h-2, 1)); ok {
		v.pick = c
	}
	return nil
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
// blockRef finds "BB3" in a remark's place.
var blockRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bBB\d+\b`) })

// gotoRemark moves the cursor to the block a remark names, in its
// function, and says where it went.
func (v *IRView) gotoRemark(r opt.Remark) string {
	bb := blockRef().FindString(r.Where)
	for i, row := range v.rows {
		if row.fn != r.Func {
			continue
		}
		text := strings.TrimLeft(row.text, " +-")
		if v.mode == modeSide {
			text = row.right
		}
		if bb != "" && (strings.HasPrefix(text, bb+" ") || strings.HasPrefix(text, bb+":")) {
			v.cur, v.off = i, max(i-2, 0)
			return fmt.Sprintf("%s: %s", r.Func, r.Where)
		}
	}
	return fmt.Sprintf("%s: %s is not in this phase's IR", r.Func, r.Where)
}

// remarksView lists the selected phase's remarks, one or more lines
// each, the one under the cursor marked.
func (v *IRView) remarksView(head string) string {
	st := v.c.Styles
	rs := v.c.W.snapRemarks(v.c.W.Sel)
	lines := []string{st.Title.Render(fit(head, v.w)), st.Dim.Render(fit("remarks (enter goes to the place, esc closes):", v.w))}
	bh := max(v.h-2, 1)
	for i := 0; i < len(rs) && len(lines) < bh+2; i++ {
		// Skip remarks above the cursor that do not fit.
		if i < v.pick-bh/2 {
			continue
		}
		r := rs[i]
		gutter := "  "
		if i == v.pick {
			gutter = "> "
		}
		text := r.String()
		if r.Line > 0 {
			text = fmt.Sprintf("%s (line %d)", text, r.Line)
		}
		for j, l := range wrap(text, max(v.w-2, 10)) {
			row := gutter + l
			if j > 0 {
				row = "  " + l
			}
			if i == v.pick {
				row = st.Selected.Render(fit(row, v.w))
			}
			lines = append(lines, row)
		}
	}
	return block(lines, v.w, v.h)
}
