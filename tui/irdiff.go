package tui

import (
	"regexp"
	"strings"
	"sync"

	"orilab/internal/irdiff"
)

// The workbench's diffs align lines the way bisection reports do
// (internal/irdiff: by instruction ID); these names keep the panes short.
type (
	opKind = irdiff.Kind
	diffOp = irdiff.Op
)

const (
	opSame    = irdiff.Same
	opChanged = irdiff.Changed
	opRemoved = irdiff.Removed
	opAdded   = irdiff.Added
)

var (
	lineKey   = irdiff.Key
	lineID    = irdiff.LineID
	alignDiff = irdiff.Align
)

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

// Compiled on first use (sync.OnceValue): a pattern compiled at package
// initialization costs every orilab process, a compile included.
// regOperand finds virtual and physical registers in an IR line.
var regOperand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%[a-z]+\d+|\bU?R\d+\b|\bU?P\d+\b`) })

// definedReg returns the first register an instruction line writes (its
// first result, before " = "), or "".
func definedReg(line string) string {
	eq := strings.Index(line, " = ")
	if eq < 0 || lineID(line) == "" {
		return ""
	}
	return regOperand().FindString(line[:eq])
}

// followRe matches token as a whole word: "%r1" does not match "%r10".
func followRe(token string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w%#])` + regexp.QuoteMeta(token) + `($|[^\w])`)
}
