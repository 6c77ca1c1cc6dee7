package tui

import "github.com/charmbracelet/bubbles/key"

// GlobalKeys work in every pane (unless a text input has focus).
type GlobalKeys struct {
	Quit, Help, NextPane, PrevPane key.Binding
	Pane                           [numPanes]key.Binding // 1-8 jump to a pane
	Panes                          key.Binding           // Pane, as one line of help
	NextChanged, PrevChanged       key.Binding
	ViewMode, Run                  key.Binding
	// Remarks lists the selected phase's remarks in the IR pane.
	Remarks key.Binding
	// CancelCompile stops the compile in flight.
	CancelCompile key.Binding
}

// ListKeys move through a list (timeline, knobs) or scroll a text pane.
type ListKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Left and Right scroll a text pane sideways (long SASS lines).
	Left, Right key.Binding
}

// TimelineKeys are the timeline's own keys.
type TimelineKeys struct {
	Filter, Disable, OnlyChanged key.Binding
}

// IRKeys are the IR pane's own keys.
type IRKeys struct {
	Follow, FollowReg, Unfollow  key.Binding
	NextHunk, PrevHunk           key.Binding
	Search, NextMatch, PrevMatch key.Binding
	NextFunc, PrevFunc, PickFunc key.Binding
	Source                       key.Binding
	// Write writes the IR or diff shown to a file, WriteAll every phase.
	Write, WriteAll key.Binding
	// PTXColumn shows the PTX source beside the IR; GotoPTX goes from a
	// PTX line to its first instruction.
	PTXColumn, GotoPTX key.Binding
	// HunkPair and MatchPair describe ]/[ and >/< on one help row.
	HunkPair, MatchPair, FuncPair key.Binding
}

// KnobKeys are the knob pane's own keys.
type KnobKeys struct {
	Filter, Edit, Reset key.Binding
}

// BisectKeys are the bisect pane's own keys.
type BisectKeys struct {
	Phase, Disable, Jump, Cancel key.Binding
}

// FaultKeys are the fault pane's own keys.
type FaultKeys struct {
	Inject, Edit, Reseed, Clear key.Binding
	// Campaign runs a campaign after the selected phase; Cancel stops it.
	Campaign, Cancel key.Binding
}

// ABKeys are the A/B pane's own keys.
type ABKeys struct {
	Edit, Jump, Cancel key.Binding
}

// InputKeys apply while a text input has focus.
type InputKeys struct {
	Accept, Cancel key.Binding
}

// KeyMap is every key binding of the workbench. The help overlay ('?') is
// generated from it.
type KeyMap struct {
	Global   GlobalKeys
	List     ListKeys
	Timeline TimelineKeys
	IR       IRKeys
	Knobs    KnobKeys
	Bisect   BisectKeys
	Fault    FaultKeys
	AB       ABKeys
	Input    InputKeys
}

func bind(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns the workbench's key bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		Global: GlobalKeys{
			Quit:          bind([]string{"q", "ctrl+c"}, "q", "quit"),
			Help:          bind([]string{"?"}, "?", "help"),
			NextPane:      bind([]string{"tab"}, "tab", "next pane"),
			PrevPane:      bind([]string{"shift+tab"}, "shift+tab", "previous pane"),
			Panes:         bind([]string{"1", "2", "3", "4", "5", "6", "7", "8"}, "1-8", "go to pane"),
			NextChanged:   bind([]string{"n"}, "n", "next phase that changed IR"),
			PrevChanged:   bind([]string{"N"}, "N", "prev. phase that changed IR"),
			ViewMode:      bind([]string{"v"}, "v", "IR: plain/diff/side by side"),
			Run:           bind([]string{"r"}, "r", "run spec on this phase's IR"),
			Remarks:       bind([]string{"R"}, "R", "remarks: why a phase declined"),
			CancelCompile: bind([]string{"c"}, "c", "cancel a compile"),
		},
		List: ListKeys{
			Up:       bind([]string{"up", "k"}, "↑/k", "up"),
			Down:     bind([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
			PageDown: bind([]string{"pgdown", "ctrl+d", " "}, "pgdn", "page down"),
			Top:      bind([]string{"home", "g"}, "g", "first"),
			Bottom:   bind([]string{"end", "G"}, "G", "last"),
			Left:     bind([]string{"left", "h"}, "←/h", "scroll left"),
			Right:    bind([]string{"right", "l"}, "→/l", "scroll right"),
		},
		Timeline: TimelineKeys{
			Filter:      bind([]string{"/"}, "/", "filter phases by name"),
			Disable:     bind([]string{"d"}, "d", "disable/enable phase"),
			OnlyChanged: bind([]string{"u"}, "u", "hide/show unchanged phases"),
		},
		IR: IRKeys{
			Follow:    bind([]string{"f"}, "f", "follow the line's #ID"),
			FollowReg: bind([]string{"F"}, "F", "follow the register it sets"),
			Unfollow:  bind([]string{"esc"}, "esc", "stop follow/search"),
			NextHunk:  bind([]string{"]"}, "]", "next changed line"),
			PrevHunk:  bind([]string{"["}, "[", "previous changed line"),
			Search:    bind([]string{"/"}, "/", "search the IR"),
			NextMatch: bind([]string{">"}, ">", "next match"),
			PrevMatch: bind([]string{"<"}, "<", "previous match"),
			NextFunc:  bind([]string{"}"}, "}", "next function"),
			PickFunc:  bind([]string{"p"}, "p", "pick a function"),
			Source:    bind([]string{"s"}, "s", "show the PTX line"),
			Write:     bind([]string{"w"}, "w", "write IR/diff to a file"),
			PTXColumn: bind([]string{"S"}, "S", "PTX column"),
			GotoPTX:   bind([]string{":"}, ":", "go to a PTX line"),
			WriteAll:  bind([]string{"W"}, "W", "write every phase"),
			PrevFunc:  bind([]string{"{"}, "{", "previous function"),
			FuncPair:  bind([]string{"}", "{"}, "} {", "next/prev. function"),
			HunkPair:  bind([]string{"]", "["}, "] [", "next/prev. change"),
			MatchPair: bind([]string{">", "<"}, "> <", "next/prev. match"),
		},
		Knobs: KnobKeys{
			Filter: bind([]string{"/"}, "/", "search knobs"),
			Edit:   bind([]string{"enter"}, "enter", "toggle or edit"),
			Reset:  bind([]string{"x", "delete"}, "x", "reset to default"),
		},
		Bisect: BisectKeys{
			Phase:   bind([]string{"b"}, "b", "find culprit phase"),
			Disable: bind([]string{"B"}, "B", "find minimal disable set"),
			Jump:    bind([]string{"enter"}, "enter", "select culprit/apply set"),
			Cancel:  bind([]string{"c"}, "c", "cancel it"),
		},
		Fault: FaultKeys{
			Inject:   bind([]string{"i"}, "i", "inject after this phase"),
			Edit:     bind([]string{"e"}, "e", "edit bugspec"),
			Reseed:   bind([]string{"s"}, "s", "next seed"),
			Clear:    bind([]string{"x"}, "x", "remove the fault"),
			Campaign: bind([]string{"C"}, "C", "run a campaign"),
			Cancel:   bind([]string{"c"}, "c", "cancel it"),
		},
		AB: ABKeys{
			Edit:   bind([]string{"e"}, "e", "B knobs, compare"),
			Jump:   bind([]string{"enter"}, "enter", "go to the phase"),
			Cancel: bind([]string{"c"}, "c", "cancel it"),
		},
		Input: InputKeys{
			Accept: bind([]string{"enter"}, "enter", "accept input"),
			Cancel: bind([]string{"esc"}, "esc", "cancel input"),
		},
	}
	names := []string{"timeline", "IR", "SASS", "knobs", "run", "bisect", "fault", "A/B"}
	for i := range k.Global.Pane {
		d := string(rune('1' + i))
		k.Global.Pane[i] = bind([]string{d}, d, names[i])
	}
	return k
}

func (l ListKeys) bindings() []key.Binding {
	return []key.Binding{l.Up, l.Down, l.PageUp, l.PageDown, l.Top, l.Bottom}
}

// hscrollStep is how far a left or right key scrolls a text pane.
const hscrollStep = 8

// hscroll applies a left or right key to a horizontal offset. It reports
// whether msg was one.
func (l ListKeys) hscroll(msg string, off int) (int, bool) {
	switch {
	case contains(l.Left, msg):
		return max(off-hscrollStep, 0), true
	case contains(l.Right, msg):
		return off + hscrollStep, true
	}
	return off, false
}

// move applies a list key to a cursor over n rows with a page of size page.
// It reports whether msg was a list key.
func (l ListKeys) move(msg string, cur, n, page int) (int, bool) {
	if n == 0 {
		return 0, false
	}
	page = max(page, 1)
	switch {
	case contains(l.Up, msg):
		cur--
	case contains(l.Down, msg):
		cur++
	case contains(l.PageUp, msg):
		cur -= page
	case contains(l.PageDown, msg):
		cur += page
	case contains(l.Top, msg):
		cur = 0
	case contains(l.Bottom, msg):
		cur = n - 1
	default:
		return cur, false
	}
	return min(max(cur, 0), n-1), true
}

func contains(b key.Binding, k string) bool {
	if !b.Enabled() {
		return false
	}
	for _, x := range b.Keys() {
		if x == k {
			return true
		}
	}
	return false
}
