package tui

import (
	"regexp"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// opKind says how a line of a diff relates the IR before and after a
// phase.
type opKind uint8

const (
	opSame    opKind = iota // the line is in both, unchanged
	opChanged               // same instruction #ID, different text
	opRemoved               // only before
	opAdded                 // only after
)

// diffOp is one row of an aligned diff. Old and New are the before and
// after text ("" where the side has no line).
type diffOp struct {
	Kind     opKind
	Old, New string
}

// lineKey is what lines are aligned on: the instruction ID for an
// instruction line, so that an instruction whose operands a phase rewrote
// stays on one row, and the text for every other line (labels, headers).
func lineKey(s string) string {
	if id := lineID(s); id != "" {
		return id
	}
	return s
}

// lineID returns "#N" for an instruction line ("\t#N OPCODE ..."), or "".
// It is instID without the regexp: it runs on every line at every step.
func lineID(s string) string {
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

// alignDiff aligns two IR texts, line by line, keyed by instruction ID. It
// runs go-diff's line-mode diff (each distinct key becomes one rune) and
// then marks equal keys with different text as changed.
func alignDiff(before, after []string) []diffOp {
	ka := make([]string, len(before))
	kb := make([]string, len(after))
	for i, s := range before {
		ka[i] = lineKey(s)
	}
	for i, s := range after {
		kb[i] = lineKey(s)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ra, rb, _ := dmp.DiffLinesToRunes(strings.Join(ka, "\n")+"\n", strings.Join(kb, "\n")+"\n")
	diffs := dmp.DiffMainRunes(ra, rb, false)
	ops := make([]diffOp, 0, max(len(before), len(after)))
	i, j := 0, 0
	for _, d := range diffs {
		n := len([]rune(d.Text))
		for range n {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				k := opSame
				if before[i] != after[j] {
					k = opChanged
				}
				ops = append(ops, diffOp{Kind: k, Old: before[i], New: after[j]})
				i, j = i+1, j+1
			case diffmatchpatch.DiffDelete:
				ops = append(ops, diffOp{Kind: opRemoved, Old: before[i]})
				i++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, diffOp{Kind: opAdded, New: after[j]})
				j++
			}
		}
	}
	return ops
}

// changes counts the ops that are not opSame.
func changes(ops []diffOp) int {
	n := 0
	for _, o := range ops {
		if o.Kind != opSame {
			n++
		}
	}
	return n
}

// regOperand finds virtual and physical registers in an IR line.
var regOperand = regexp.MustCompile(`%[a-z]+\d+|\bU?R\d+\b|\bU?P\d+\b`)

// definedReg returns the first register an instruction line writes (its
// first result, before " = "), or "".
func definedReg(line string) string {
	eq := strings.Index(line, " = ")
	if eq < 0 || lineID(line) == "" {
		return ""
	}
	return regOperand.FindString(line[:eq])
}

// followRe matches token as a whole word: "%r1" does not match "%r10".
func followRe(token string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w%#])` + regexp.QuoteMeta(token) + `($|[^\w])`)
}
