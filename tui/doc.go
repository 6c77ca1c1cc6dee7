// Package tui is orilab's terminal workbench: a bubbletea program that
// steps through the 159 phases of a compilation, shows the Ori IR after
// each one (plain, as a unified diff, or side by side, with the PTX beside
// it), the passes' remarks, edits knobs and recompiles in the background,
// compares the compilation with another knob set phase by phase (A/B),
// runs a kernel spec on any phase's IR, bisects, and plants faults or runs
// fault campaigns.
//
// Layout, after the Charmbracelet codebases (../shared/STYLE.md): every pane
// is a component in its own file with Update, View, SetSize and a
// help.KeyMap: the timeline (timeline.go, with sparkline.go), the IR
// (ir.go, irdiff.go for the diff views, remarks.go for the remarks list,
// source.go for the PTX column, export.go for w/W), SASS (sasspane.go),
// knobs (knobspane.go), run (runpane.go), bisect (bisectpane.go), fault
// (faultpane.go, campaign.go) and A/B (abpane.go, on internal/abdiff).
// They share one *Common (common.go: sizes, styles, key bindings and the
// compilation being looked at). The root model (model.go) owns focus,
// global keys, the mouse (mouse.go), resizing and routing; styles.go and
// keys.go hold the styles and key bindings; sample.go embeds the built-in
// sample. Compiles, runs, bisections, B compilations and campaigns happen
// only in tea.Cmds (work.go, bisectpane.go, abpane.go, campaign.go), each
// with progress messages and a cancel key; orilab tui runs the collector
// at GCPercent so that keys stay under 100 ms on large modules.
//
// The compilation is a pipeline.Request, built like every other front
// door's (Workbench.Request): orilab tui's -O, -arch, knobs (ORILAB_KNOBS,
// -knobs-file, -knob, the PTX's .pragma strings) and --maxrregcount, the
// knob pane's overrides on top, and the Fault pane's bugspec planted with
// faultinject.Plant, so its verdict is orilab inject's.
//
// The screen: a tab bar, the timeline on the left, the active pane on the
// right, a status bar and a one-line help footer. '?' shows every binding.
package tui
