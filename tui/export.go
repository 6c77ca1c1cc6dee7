package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/internal/abdiff"
	"orilab/internal/atomicfile"
	"orilab/internal/irdiff"
	"orilab/pipeline"
)

// Export from the IR pane: w writes what the pane shows (the IR after the
// selected phase in plain mode, its unified diff against the IR before
// it in the diff modes), W the whole compilation of the cursor's function
// (the module's, with one function): the IR after lowering and after
// every phase that changed it, in orilab compile --print-changed's form.
// A prompt offers a file name in the current directory; enter writes it
// with atomicfile.Write, so an existing file is replaced whole or not at
// all.

// exportState is the IR pane's export prompt.
type exportState struct {
	input  textinput.Model
	active bool
	whole  bool // W: every phase; w: the selected one
}

// startExport opens the prompt with a default file name.
func (v *IRView) startExport(whole bool) tea.Cmd {
	w := v.c.W
	if w.Snap(w.Sel) == nil && !whole {
		return cmdOf(statusMsg("this phase did not run: nothing to write"))
	}
	if w.Lowered == nil {
		return cmdOf(statusMsg("nothing compiled yet: nothing to write"))
	}
	base := strings.TrimSuffix(filepath.Base(w.File), filepath.Ext(w.File))
	base = strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(base)
	name := ""
	switch {
	case whole:
		fn := v.exportFunc()
		if fn == "" {
			fn = "module"
		}
		name = fmt.Sprintf("%s.%s.phases.ir", base, fn)
	case v.mode == modePlain:
		name = fmt.Sprintf("%s.%d-%s.ir", base, w.Sel, pipeline.PhaseTable[w.Sel].Name)
	default:
		name = fmt.Sprintf("%s.%d-%s.diff", base, w.Sel, pipeline.PhaseTable[w.Sel].Name)
	}
	v.export.active, v.export.whole = true, whole
	v.export.input.SetValue(name)
	v.export.input.CursorEnd()
	what := "this phase's IR"
	if v.mode != modePlain {
		what = "this phase's diff"
	}
	if whole {
		what = "every phase that changed " + orModule(v.exportFunc())
	}
	return tea.Batch(v.export.input.Focus(), cmdOf(statusMsg("write "+what+" to the file named; enter writes, esc cancels")))
}

func orModule(fn string) string {
	if fn == "" {
		return "the module"
	}
	return fn
}

// exportFunc is the function W writes: the cursor's, when the module has
// several.
func (v *IRView) exportFunc() string {
	if v.nfuncs > 1 {
		return v.CursorFunc()
	}
	return ""
}

// updateExport handles a key while the export prompt is open.
func (v *IRView) updateExport(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case key.Matches(km, k.Input.Cancel):
		v.export.active = false
		v.export.input.Blur()
		return cmdOf(statusMsg("nothing written"))
	case key.Matches(km, k.Input.Accept):
		v.export.active = false
		v.export.input.Blur()
		return cmdOf(statusMsg(v.writeExport(strings.TrimSpace(v.export.input.Value()))))
	}
	var cmd tea.Cmd
	v.export.input, cmd = v.export.input.Update(km)
	return cmd
}

// writeExport writes the export to path and says what it wrote.
func (v *IRView) writeExport(path string) string {
	if path == "" {
		return "no file name: nothing written"
	}
	text, what := v.exportText()
	if err := atomicfile.Write(path, []byte(text)); err != nil {
		return fmt.Sprintf("writing %s: %v", path, err)
	}
	return fmt.Sprintf("wrote %s (%s) to %s", what, plural(strings.Count(text, "\n"), "line"), path)
}

// exportText is the text to write and what it is.
func (v *IRView) exportText() (string, string) {
	w := v.c.W
	p := pipeline.PhaseTable[w.Sel]
	if v.export.whole {
		fn := v.exportFunc()
		what := orModule(fn)
		prev, _ := abdiff.FuncText(w.Lowered, fn)
		var b strings.Builder
		fmt.Fprintf(&b, "// *** IR of %s after lowering ***\n%s\n", what, prev)
		n := 0
		for _, s := range w.Snaps {
			text, ok := abdiff.FuncText(s.Module, fn)
			if !ok || text == prev {
				continue
			}
			prev = text
			n++
			fmt.Fprintf(&b, "// *** IR of %s after #%d %s (changed) ***\n%s\n", what, s.Index, s.Name, text)
		}
		return b.String(), fmt.Sprintf("%s after lowering and %s", what, plural(n, "phase"))
	}
	after := w.Snap(w.Sel).Module.String()
	if v.mode == modePlain {
		return after, fmt.Sprintf("the IR after #%d %s", w.Sel, p.Name)
	}
	before := w.Before(w.Sel).String()
	return irdiff.Unified(before, after, "before "+p.Name, "after "+p.Name, 3), fmt.Sprintf("the diff of #%d %s", w.Sel, p.Name)
}
