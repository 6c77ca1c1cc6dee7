// Package irdiff aligns and diffs two listings of Ori IR the way the
// workbench and bisection reports both show them: lines pair up by
// instruction ID (#12), which survives in-place rewrites, so a rewritten
// instruction stays on one row as a changed pair, and every other line
// (labels, headers) pairs by its text.
package irdiff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Kind says how a row of an aligned diff relates the two listings.
type Kind uint8

const (
	Same    Kind = iota // the line is in both, unchanged
	Changed             // same instruction #ID, different text
	Removed             // only before
	Added               // only after
)

// Op is one row of an aligned diff. Old and New are the before and after
// text ("" where the side has no line).
type Op struct {
	Kind     Kind
	Old, New string
}

// Key is what lines are aligned on: the instruction ID for an instruction
// line, and the text for every other line.
func Key(s string) string {
	if id := LineID(s); id != "" {
		return id
	}
	return s
}

// LineID returns "#N" for an instruction line ("\t#N OPCODE ..."), or "".
// It runs on every line at every step, so it does without a regexp.
func LineID(s string) string {
	t := strings.TrimLeft(s, " \t")
	if len(t) < 3 || t[0] != '#' {
		return ""
	}
	i := 1
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	if i == 1 || i >= len(t) || t[i] != ' ' {
		return ""
	}
	return t[:i]
}

// Align aligns two IR listings, line by line, keyed by Key. It runs
// go-diff's line-mode diff (each distinct key becomes one rune) and then
// marks equal keys with different text as Changed.
func Align(before, after []string) []Op {
	ka := make([]string, len(before))
	kb := make([]string, len(after))
	for i, s := range before {
		ka[i] = Key(s)
	}
	for i, s := range after {
		kb[i] = Key(s)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	// One "\n"-terminated line per key: an empty listing is no line at
	// all (joining and appending "\n" made it one empty line, and the walk
	// below then indexed past the end).
	text := func(keys []string) string {
		var b strings.Builder
		for _, k := range keys {
			b.WriteString(k)
			b.WriteByte('\n')
		}
		return b.String()
	}
	ra, rb, _ := dmp.DiffLinesToRunes(text(ka), text(kb))
	diffs := dmp.DiffMainRunes(ra, rb, false)
	ops := make([]Op, 0, max(len(before), len(after)))
	i, j := 0, 0
	for _, d := range diffs {
		n := len([]rune(d.Text))
		for range n {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				k := Same
				if before[i] != after[j] {
					k = Changed
				}
				ops = append(ops, Op{Kind: k, Old: before[i], New: after[j]})
				i, j = i+1, j+1
			case diffmatchpatch.DiffDelete:
				ops = append(ops, Op{Kind: Removed, Old: before[i]})
				i++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, Op{Kind: Added, New: after[j]})
				j++
			}
		}
	}
	return ops
}

// Lines splits a listing into lines, without the final newline's empty
// line.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Unified renders the aligned diff of a and b in unified form with ctx
// lines of context. A Changed row is a -/+ pair, so a rewritten
// instruction lines up with its old self.
func Unified(a, b, nameA, nameB string, ctx int) string {
	type line struct {
		op   byte
		text string
	}
	var all []line
	for _, o := range Align(Lines(a), Lines(b)) {
		switch o.Kind {
		case Same:
			all = append(all, line{' ', o.Old})
		case Changed:
			all = append(all, line{'-', o.Old}, line{'+', o.New})
		case Removed:
			all = append(all, line{'-', o.Old})
		case Added:
			all = append(all, line{'+', o.New})
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
