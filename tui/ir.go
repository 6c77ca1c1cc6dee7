package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// irMode is how the IR pane shows the selected phase.
type irMode uint8

const (
	modePlain irMode = iota // the IR after the phase
	modeDiff                // unified diff against the IR before it
	modeSide                // before | after, aligned by instruction ID
)

func (m irMode) String() string {
	return [...]string{"plain", "diff", "side by side"}[m]
}

// irRow is one displayed row.
type irRow struct {
	kind        opKind
	text        string // plain and unified modes
	left, right string // side by side: before and after
	key         string // fn and lineKey of the row, to keep the cursor across phases
	// fn is the function the row is in: instruction IDs are numbered per
	// function, so #8 names one instruction in each function of a module.
	fn string
}

// funcHeader returns the function a ".entry NAME" or ".func NAME" line
// starts, or "".
func funcHeader(line string) string {
	for _, p := range []string{".entry ", ".func "} {
		if strings.HasPrefix(line, p) {
			return strings.TrimSpace(line[len(p):])
		}
	}
	return ""
}

// IRView is the IR pane.
type IRView struct {
	c      *Common
	w, h   int
	mode   irMode
	cur    int // cursor row
	off    int
	left   int    // first column shown (left and right scroll)
	follow string // the followed token ("" for none)
	// followFn is the function the followed token is in.
	followFn string
	re       *regexp.Regexp
	// search is the IR search input; query is the accepted search text
	// (matched case-insensitively as a substring).
	search    textinput.Model
	searching bool
	query     string
	rows      []irRow
	nchange   int
	nfuncs    int // functions in the rows
	// picking is set while the function picker (p) is open; pick is its
	// cursor.
	picking bool
	pick    int
	// remarking is set while the remarks list (R) is open; it uses pick
	// as its cursor.
	remarking bool
	// export is the w/W prompt (export.go).
	export exportState
	// src shows the PTX column (S); gotoing is set while the : prompt
	// for a PTX line is open (source.go).
	src     bool
	gotoing bool
	gotoIn  textinput.Model
	// what rows were computed for
	shownAfter, shownBefore *ori.Module
	shownMode               irMode
	shownSel                int
	// text caches the line split of module texts; modules are immutable
	// once recorded, so the pointer is the key.
	text map[*ori.Module][]string
}

// NewIRView returns the IR pane.
func NewIRView(c *Common) *IRView {
	return &IRView{c: c, text: map[*ori.Module][]string{}, shownSel: -1, search: newInput("/"), export: exportState{input: newInput("write to: ")}, gotoIn: newInput("PTX line (enter goes to it): ")}
}

// Title implements component.
func (v *IRView) Title() string { return "IR" }

// SetSize implements component.
func (v *IRView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.search.Width = max(w-2, 1)
	v.export.input.Width = max(w-12, 1)
	v.gotoIn.Width = max(w-30, 1)
}

// InputFocused implements inputFocused.
func (v *IRView) InputFocused() bool {
	return v.searching || v.picking || v.remarking || v.export.active || v.gotoing
}

// ShortHelp implements help.KeyMap.
func (v *IRView) ShortHelp() []key.Binding {
	k := v.c.Keys
	if v.export.active || v.gotoing {
		return []key.Binding{k.Input.Accept, k.Input.Cancel}
	}
	if v.searching || v.picking || v.remarking {
		return []key.Binding{k.List.Down, k.Input.Accept, k.Input.Cancel}
	}
	return []key.Binding{k.List.Down, k.Global.ViewMode, k.IR.NextHunk, k.IR.Follow, k.IR.Search, k.IR.PickFunc, k.Global.Run}
}

// FullHelp implements help.KeyMap.
func (v *IRView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{k.List.bindings(), {k.Global.ViewMode, k.IR.NextHunk, k.IR.PrevHunk, k.IR.Follow, k.IR.FollowReg, k.IR.Unfollow}, {k.IR.Search, k.IR.NextMatch, k.IR.PrevMatch}}
}

// Mode returns the display mode.
func (v *IRView) Mode() irMode { return v.mode }

// CycleMode switches plain -> diff -> side by side -> plain.
func (v *IRView) CycleMode() { v.mode = (v.mode + 1) % 3; v.Sync() }

// SetMode switches to mode m.
func (v *IRView) SetMode(m irMode) { v.mode = m; v.Sync() }

func (v *IRView) lines(m *ori.Module) []string {
	if m == nil {
		return nil
	}
	if l, ok := v.text[m]; ok {
		return l
	}
	if len(v.text) > 64 {
		clear(v.text)
	}
	l := strings.Split(strings.TrimRight(m.String(), "\n"), "\n")
	v.text[m] = l
	return l
}

// Sync recomputes the rows when the selected phase, its IR or the mode
// changed. The root calls it after every update; it is cheap otherwise.
func (v *IRView) Sync() {
	w := v.c.W
	s := w.Snap(w.Sel)
	var after, before *ori.Module
	if s != nil {
		after, before = s.Module, w.Before(w.Sel)
	}
	if after == v.shownAfter && before == v.shownBefore && v.mode == v.shownMode && w.Sel == v.shownSel {
		return
	}
	curKey := ""
	if v.cur < len(v.rows) && after != nil {
		curKey = v.rows[v.cur].key
	}
	v.shownAfter, v.shownBefore, v.shownMode, v.shownSel = after, before, v.mode, w.Sel
	v.rows = v.rows[:0]
	v.nchange = 0
	if after == nil {
		return
	}
	al := v.lines(after)
	fn, oldFn := "", ""
	if v.mode == modePlain {
		for _, l := range al {
			if f := funcHeader(l); f != "" {
				fn = f
			}
			v.rows = append(v.rows, irRow{kind: opSame, text: l, key: fn + "\x00" + lineKey(l), fn: fn})
		}
	} else {
		var ops []diffOp
		if before == after {
			ops = make([]diffOp, len(al))
			for i, l := range al {
				ops[i] = diffOp{Kind: opSame, Old: l, New: l}
			}
		} else {
			ops = alignDiff(v.lines(before), al)
		}
		v.nchange = changes(ops)
		for _, o := range ops {
			if f := funcHeader(o.New); f != "" {
				fn = f
			}
			if f := funcHeader(o.Old); f != "" {
				oldFn = f
			}
			f, k := fn, lineKey(o.New)
			if o.Kind == opRemoved {
				f, k = oldFn, lineKey(o.Old)
			}
			k = f + "\x00" + k
			switch {
			case v.mode == modeSide:
				v.rows = append(v.rows, irRow{kind: o.Kind, left: o.Old, right: o.New, key: k, fn: f})
			case o.Kind == opSame:
				v.rows = append(v.rows, irRow{kind: opSame, text: " " + o.New, key: k, fn: f})
			case o.Kind == opChanged:
				v.rows = append(v.rows, irRow{kind: opRemoved, text: "-" + o.Old, key: k, fn: f}, irRow{kind: opAdded, text: "+" + o.New, key: k, fn: f})
			case o.Kind == opRemoved:
				v.rows = append(v.rows, irRow{kind: opRemoved, text: "-" + o.Old, key: k, fn: f})
			default:
				v.rows = append(v.rows, irRow{kind: opAdded, text: "+" + o.New, key: k, fn: f})
			}
		}
	}
	v.nfuncs = 0
	for i, r := range v.rows {
		if r.fn != "" && (i == 0 || v.rows[i-1].fn != r.fn) {
			v.nfuncs++
		}
	}
	// Keep the cursor on the same instruction when it still exists; from
	// the top of a diff, go to the first change.
	v.cur = min(v.cur, max(len(v.rows)-1, 0))
	if v.cur == 0 && v.nchange > 0 {
		v.cur = max(v.nextChange(-1, +1), 0)
		v.off = max(v.cur-v.bodyHeight()/3, 0)
		return
	}
	if curKey != "" {
		for i, r := range v.rows {
			if r.key == curKey {
				v.cur = i
				break
			}
		}
	}
}

// bodyHeight is the number of IR rows shown: the pane less its header and,
// while searching or with a query, the search line.
func (v *IRView) bodyHeight() int {
	if v.searching || v.query != "" {
		return max(v.h-2, 1)
	}
	return max(v.h-1, 1)
}

// matches reports whether row r contains the query.
func (v *IRView) matches(r irRow) bool {
	if v.query == "" {
		return false
	}
	q := strings.ToLower(v.query)
	for _, t := range []string{r.text, r.left, r.right} {
		if t != "" && strings.Contains(strings.ToLower(t), q) {
			return true
		}
	}
	return false
}

// nextMatch moves the cursor to the next (dir +1) or previous (-1) row
// matching the query, wrapping around; from the cursor itself when
// inclusive. It returns a status line.
func (v *IRView) nextMatch(dir int, inclusive bool) string {
	n := len(v.rows)
	count := 0
	for _, r := range v.rows {
		if v.matches(r) {
			count++
		}
	}
	if count == 0 {
		return fmt.Sprintf("%q: no match in this phase's IR", v.query)
	}
	start := 1
	if inclusive {
		start = 0
	}
	for k := start; k <= n; k++ {
		i := ((v.cur+dir*k)%n + n) % n
		if v.matches(v.rows[i]) {
			v.cur = i
			break
		}
	}
	return fmt.Sprintf("%q: %s (> next, < previous)", v.query, plural(count, "matching line"))
}

// Update implements component.
func (v *IRView) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := v.c.Keys
	if v.picking {
		return v.updatePicker(km)
	}
	if v.remarking {
		return v.updateRemarks(km)
	}
	if v.export.active {
		return v.updateExport(km)
	}
	if v.gotoing {
		return v.updateGoto(km)
	}
	if v.searching {
		switch {
		case key.Matches(km, k.Input.Accept):
			v.searching = false
			v.search.Blur()
			v.query = strings.TrimSpace(v.search.Value())
			if v.query == "" {
				return nil
			}
			return cmdOf(statusMsg(v.nextMatch(+1, true)))
		case key.Matches(km, k.Input.Cancel):
			v.searching = false
			v.search.Blur()
			v.search.SetValue(v.query)
			return nil
		}
		var cmd tea.Cmd
		v.search, cmd = v.search.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(km, k.IR.Search):
		// A new search starts empty, as in less and vi (> and < repeat
		// the last one).
		v.searching = true
		v.search.SetValue("")
		return v.search.Focus()
	case key.Matches(km, k.IR.NextMatch), key.Matches(km, k.IR.PrevMatch):
		if v.query == "" {
			return cmdOf(statusMsg("no search: / searches the IR"))
		}
		dir := +1
		if key.Matches(km, k.IR.PrevMatch) {
			dir = -1
		}
		return cmdOf(statusMsg(v.nextMatch(dir, false)))
	case key.Matches(km, k.IR.Follow), key.Matches(km, k.IR.FollowReg):
		if v.cur >= len(v.rows) {
			return nil
		}
		r := v.rows[v.cur]
		line := r.text
		if v.mode == modeSide {
			line = r.right
			if line == "" {
				line = r.left
			}
		} else if v.mode == modeDiff && line != "" {
			line = line[1:]
		}
		tok := ""
		if key.Matches(km, k.IR.Follow) {
			tok = lineID(line)
		} else {
			tok = definedReg(line)
		}
		if tok == "" {
			return cmdOf(statusMsg("nothing to follow on this line"))
		}
		v.follow, v.followFn, v.re = tok, r.fn, followRe(tok)
		return cmdOf(statusMsg("following " + tok + " in " + r.fn + " across phases (esc stops)"))
	case key.Matches(km, k.IR.PTXColumn):
		v.src = !v.src
		switch {
		case !v.src:
			return cmdOf(statusMsg("PTX column hidden"))
		case v.mode == modeSide:
			return cmdOf(statusMsg("PTX column on: it shows in the plain and diff views (v)"))
		}
		return cmdOf(statusMsg("PTX column on: it follows the cursor; : goes to a PTX line"))
	case key.Matches(km, k.IR.GotoPTX):
		v.gotoing = true
		v.gotoIn.SetValue("")
		// The prompt says what to type: a status message from this key
		// could land after the answer to a fast typist's enter.
		return v.gotoIn.Focus()
	case key.Matches(km, k.IR.Write):
		return v.startExport(false)
	case key.Matches(km, k.IR.WriteAll):
		return v.startExport(true)
	case key.Matches(km, k.IR.Source):
		return cmdOf(statusMsg(v.sourceLine()))
	case key.Matches(km, k.IR.PickFunc):
		starts := v.funcStarts()
		if len(starts) == 0 {
			return cmdOf(statusMsg("no function in this phase's IR"))
		}
		v.picking, v.pick = true, 0
		for i, s := range starts {
			if s <= v.cur {
				v.pick = i
			}
		}
		return cmdOf(statusMsg(fmt.Sprintf("%d functions: enter goes to one, esc closes", len(starts))))
	case key.Matches(km, k.IR.NextFunc), key.Matches(km, k.IR.PrevFunc):
		dir := +1
		if key.Matches(km, k.IR.PrevFunc) {
			dir = -1
		}
		return cmdOf(statusMsg(v.jumpFunc(dir)))
	case key.Matches(km, k.IR.NextHunk), key.Matches(km, k.IR.PrevHunk):
		dir := +1
		if key.Matches(km, k.IR.PrevHunk) {
			dir = -1
		}
		if c := v.nextChange(v.cur, dir); c >= 0 {
			v.cur = c
		} else {
			return cmdOf(statusMsg("no more changed lines"))
		}
		return nil
	case key.Matches(km, k.IR.Unfollow):
		return cmdOf(statusMsg(v.Unfollow()))
	}
	if left, ok := k.List.hscroll(km.String(), v.left); ok {
		v.left = left
		return nil
	}
	if c, ok := k.List.move(km.String(), v.cur, len(v.rows), v.bodyHeight()); ok {
		v.cur = c
	}
	return nil
}

// Unfollow stops following and searching, and says what it stopped.
func (v *IRView) Unfollow() string {
	what := "nothing to stop (esc stops a follow or a search)"
	switch {
	case v.follow != "" && v.query != "":
		what = "stopped following " + v.follow + " and searching"
	case v.follow != "":
		what = "stopped following " + v.follow
	case v.query != "":
		what = fmt.Sprintf("stopped searching %q", v.query)
	}
	v.follow, v.followFn, v.re = "", "", nil
	v.query = ""
	v.search.SetValue("")
	return what
}

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
// srcLine finds the PTX line an IR line names ("; line 190").
var srcLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`; line (\d+)\s*$`) })

// sourceLine says which PTX line the cursor's instruction came from, and
// what that line says.
func (v *IRView) sourceLine() string {
	if v.cur >= len(v.rows) {
		return "no line under the cursor"
	}
	r := v.rows[v.cur]
	line := r.text
	if v.mode == modeSide {
		line = r.right
		if line == "" {
			line = r.left
		}
	}
	m := srcLine().FindStringSubmatch(line)
	if m == nil {
		return "this line names no PTX line"
	}
	n, _ := strconv.Atoi(m[1])
	src := v.c.W.Source
	if n < 1 || n > len(src) {
		return fmt.Sprintf("PTX line %s: not in %s", m[1], v.c.W.File)
	}
	return fmt.Sprintf("%s:%d: %s", v.c.W.File, n, strings.TrimSpace(src[n-1]))
}

// funcStarts returns the first row of each function.
func (v *IRView) funcStarts() []int {
	var starts []int
	for i, r := range v.rows {
		if r.fn != "" && (i == 0 || v.rows[i-1].fn != r.fn) {
			starts = append(starts, i)
		}
	}
	return starts
}

// updatePicker handles a key while the function picker is open.
func (v *IRView) updatePicker(km tea.KeyMsg) tea.Cmd {
	if km.Type == tea.KeyRunes && len(km.Runes) > 1 {
		// Keys that arrived together (see Model.update): one at a time.
		var cmds []tea.Cmd
		for _, r := range km.Runes {
			cmds = append(cmds, v.updatePicker(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Sequence(cmds...)
	}
	k := v.c.Keys
	starts := v.funcStarts()
	switch {
	case key.Matches(km, k.Input.Cancel):
		v.picking = false
		return cmdOf(statusMsg("function picker closed"))
	case key.Matches(km, k.Input.Accept):
		v.picking = false
		if v.pick >= len(starts) {
			return nil
		}
		v.cur = starts[v.pick]
		v.off = v.cur
		return cmdOf(statusMsg(fmt.Sprintf("function %d of %d: %s", v.pick+1, len(starts), v.rows[v.cur].fn)))
	}
	if c, ok := k.List.move(km.String(), v.pick, len(starts), max(v.h-2, 1)); ok {
		v.pick = c
	}
	return nil
}

// pickerView is the function picker: every function of the phase's IR
// with its size, the one under the picker's cursor marked.
func (v *IRView) pickerView(head string) string {
	st := v.c.Styles
	starts := v.funcStarts()
	lines := []string{st.Title.Render(fit(head, v.w)), st.Dim.Render(fit("functions (enter goes to one, esc closes):", v.w))}
	bh := max(v.h-2, 1)
	off := scrollTo(0, v.pick, bh)
	for i := off; i < len(starts) && i < off+bh; i++ {
		end := len(v.rows)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		n := 0
		for _, r := range v.rows[starts[i]:end] {
			if lineID(r.text) != "" || lineID(r.right) != "" || lineID(r.left) != "" {
				n++
			}
		}
		row := fmt.Sprintf(" %2d %s  (%s)", i+1, v.rows[starts[i]].fn, plural(n, "instruction"))
		if i == v.pick {
			row = ">" + row[1:]
			row = st.Selected.Render(fit(row, v.w))
		}
		lines = append(lines, row)
	}
	return block(lines, v.w, v.h)
}

// jumpFunc moves the cursor to the first row of the next (dir +1) or
// previous (-1) function, wrapping around, and says where it went.
func (v *IRView) jumpFunc(dir int) string {
	starts := v.funcStarts()
	if len(starts) == 0 {
		return "no function in this phase's IR"
	}
	cur := -1 // the function the cursor is in
	for k, s := range starts {
		if s <= v.cur {
			cur = k
		}
	}
	next := 0
	switch {
	case dir > 0:
		next = (cur + 1) % len(starts)
	case cur >= 0 && v.cur > starts[cur]:
		next = cur // back to the start of this function
	default:
		next = (max(cur, 0) - 1 + len(starts)) % len(starts)
	}
	v.cur = starts[next]
	v.off = v.cur
	return fmt.Sprintf("function %d of %d: %s (} next, { previous)", next+1, len(starts), v.rows[v.cur].fn)
}

// CursorFunc returns the function the cursor row is in, or "".
func (v *IRView) CursorFunc() string {
	if v.cur < len(v.rows) {
		return v.rows[v.cur].fn
	}
	return ""
}

// followed reports whether row r holds the followed token: in the
// function it was picked in, since IDs and registers are per function.
func (v *IRView) followed(r irRow, text string) bool {
	return v.re != nil && r.fn == v.followFn && v.re.MatchString(text)
}

// Following returns the followed token, or "".
func (v *IRView) Following() string { return v.follow }

func (v *IRView) style(r irRow, kind opKind, text string, cursor bool) string {
	st := v.c.Styles
	s := st.Same
	switch kind {
	case opAdded:
		s = st.Added
	case opRemoved:
		s = st.Removed
	case opChanged:
		s = st.Changed
	}
	if v.followed(r, text) {
		s = st.Follow
	}
	if cursor {
		s = s.Inherit(st.Cursor)
	}
	return s.Render(text)
}

// View implements component.
func (v *IRView) View() string {
	w := v.c.W
	v.Sync()
	p := pipeline.PhaseTable[w.Sel]
	s := w.Snap(w.Sel)
	head := fmt.Sprintf("#%d %s [%s]", p.Index, p.Name, v.mode)
	if v.mode != modePlain && s != nil {
		if v.nchange == 0 {
			head += " no change"
		} else {
			head += fmt.Sprintf(" %d changed", v.nchange)
		}
	}
	if v.follow != "" {
		head += " f:" + v.follow
	}
	if v.left > 0 {
		head += fmt.Sprintf(" →%d", v.left)
	}
	// The function the cursor is in comes first, where a narrow pane
	// does not cut it: IDs repeat in every function.
	if fn := v.CursorFunc(); fn != "" && v.nfuncs > 1 {
		head = fn + " · " + head
	}
	if v.picking && s != nil {
		return v.pickerView(head)
	}
	if v.remarking && s != nil {
		return v.remarksView(head)
	}
	lines := []string{v.c.Styles.Title.Render(fit(head, v.w))}
	tabs := strings.NewReplacer("\t", "  ")
	if s == nil {
		if w.Compiling && w.Lowered == nil {
			lines = append(lines, v.c.Styles.Dim.Render("compiling..."))
			return block(lines, v.w, v.h)
		}
		if w.Err != "" && w.Lowered == nil {
			// Nothing ran: the error (a lowering error, with its source
			// line and caret) is the whole story, line by line.
			lines = append(lines, v.c.Styles.Error.Render("no phase ran: the compile failed:"))
			msg, rest, _ := strings.Cut(w.Err, "\n")
			lines = append(lines, wrap(msg, v.w)...)
			// The source line and the caret keep their columns.
			for _, l := range strings.Split(rest, "\n") {
				lines = append(lines, tabs.Replace(l))
			}
			return block(lines, v.w, v.h)
		}
		lines = append(lines, v.c.Styles.Dim.Render("this phase did not run in this compilation"))
		return block(lines, v.w, v.h)
	}
	bh := v.bodyHeight()
	v.off = scrollTo(v.off, v.cur, bh)
	half := max((v.w-4)/2, 1)
	for i := v.off; i < len(v.rows) && i < v.off+bh; i++ {
		r := v.rows[i]
		cursor := i == v.cur
		gutter := " "
		switch {
		case cursor:
			gutter = ">"
		case v.followed(r, r.text) || v.followed(r, r.left) || v.followed(r, r.right):
			gutter = "*"
		case v.matches(r):
			gutter = "/"
		}
		if v.mode == modeSide {
			lk, rk := opSame, opSame
			switch r.kind {
			case opChanged:
				lk, rk = opRemoved, opAdded
			case opRemoved:
				lk = opRemoved
			case opAdded:
				rk = opAdded
			}
			// A marker column on each side, as in the unified diff, so
			// that the changes show without colour (NO_COLOR) too.
			left := v.style(r, lk, sideMark(lk)+fit(shift(tabs.Replace(r.left), v.left), half-1), cursor)
			right := v.style(r, rk, sideMark(rk)+fit(shift(tabs.Replace(r.right), v.left), half-1), cursor)
			lines = append(lines, gutter+left+" │ "+right)
			continue
		}
		text := tabs.Replace(r.text)
		if v.left > 0 && v.mode != modePlain && text != "" {
			text = text[:1] + shift(text[1:], v.left) // keep the - + column
		} else {
			text = shift(text, v.left)
		}
		lines = append(lines, gutter+v.style(r, r.kind, fit(text, v.w-1-v.srcWidth()), cursor))
	}
	if sw := v.srcWidth(); sw > 0 {
		// The PTX column beside the IR rows, below the header.
		body := lines[1:]
		src := v.srcLines(v.cursorPTXLine(), sw-1, bh)
		for i := range src {
			l := strings.Repeat(" ", v.w-sw)
			if i < len(body) {
				l = body[i]
			}
			src[i] = l + "│" + src[i]
		}
		lines = append(lines[:1], src...)
	}
	if v.export.active || v.gotoing {
		in := v.export.input
		if v.gotoing {
			in = v.gotoIn
		}
		lines = append(lines[:min(len(lines), bh)], make([]string, bh-min(len(lines), bh))...)
		lines = append(lines, in.View())
	} else if v.searching || v.query != "" {
		lines = append(lines[:min(len(lines), 1+bh)], make([]string, 1+bh-min(len(lines), 1+bh))...)
		lines = append(lines, v.search.View())
	}
	return block(lines, v.w, v.h)
}

// sideMark is the marker of one side of a side-by-side row.
func sideMark(k opKind) string {
	switch k {
	case opRemoved:
		return "-"
	case opAdded:
		return "+"
	}
	return " "
}

// texts returns the displayed rows' text (plain and diff modes), for tests.
func (v *IRView) texts() []string {
	out := make([]string, len(v.rows))
	for i, r := range v.rows {
		out[i] = strings.ReplaceAll(r.text, "\t", "  ")
	}
	return out
}

// nextChange returns the first row of the next (dir +1) or previous (-1)
// change block from row from, skipping the block from is in, or -1.
func (v *IRView) nextChange(from, dir int) int {
	i := from + dir
	for i >= 0 && i < len(v.rows) && from >= 0 && v.rows[i].kind != opSame && v.rows[from].kind != opSame {
		i += dir
	}
	for ; i >= 0 && i < len(v.rows); i += dir {
		if v.rows[i].kind != opSame {
			// Both ways land on a change block's first row.
			for dir < 0 && i > 0 && v.rows[i-1].kind != opSame {
				i--
			}
			return i
		}
	}
	return -1
}
