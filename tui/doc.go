// Package tui is orilab's terminal workbench: a bubbletea program that
// steps through the 159 phases of a compilation, shows the Ori IR after
// each one (plain, as a unified diff, or side by side), edits knobs and
// recompiles in the background, and runs a kernel spec on any phase's IR.
//
// Layout, after the Charmbracelet codebases (../shared/STYLE.md): every pane
// is a component in its own file with Update, View, SetSize and a
// help.KeyMap (timeline.go, ir.go, knobspane.go, runpane.go,
// placeholder.go). They share one *Common (sizes, styles, key bindings and
// the compilation being looked at). The root model (model.go) owns focus,
// global keys, resizing and routing; styles.go and keys.go hold the styles
// and key bindings. Compiles and runs happen only in tea.Cmds (work.go).
//
// The screen: a tab bar, the timeline on the left, the active pane on the
// right, a status bar and a one-line help footer. '?' shows every binding.
package tui
