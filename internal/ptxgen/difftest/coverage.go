package difftest

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"orilab/internal/ptxgen"
	"orilab/pipeline/ori"
)

// Coverage collects what a campaign exercised: statement kinds the
// generator produced, PTX instructions in the generated text, Ori opcodes
// after lowering, and per phase how many compilations ran it and how many
// of those it changed the IR in. It is safe for concurrent use.
type Coverage struct {
	mu           sync.Mutex
	Programs     int            `json:"programs"`
	Stmts        map[string]int `json:"statements"`
	PTXOps       map[string]int `json:"ptx_instructions"`
	OriOps       map[string]int `json:"ori_opcodes"`
	PhaseRuns    map[string]int `json:"phase_runs"`
	PhaseChanges map[string]int `json:"phase_changes"`
}

// NewCoverage returns an empty collector.
func NewCoverage() *Coverage {
	return &Coverage{Stmts: map[string]int{}, PTXOps: map[string]int{}, OriOps: map[string]int{},
		PhaseRuns: map[string]int{}, PhaseChanges: map[string]int{}}
}

// AddProgram records a generated program's statements and instructions.
func (c *Coverage) AddProgram(p *ptxgen.Program, src string) {
	kinds := p.Kinds()
	ops := PTXOpcodes(src)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Programs++
	for k, n := range kinds {
		c.Stmts[k] += n
	}
	for k, n := range ops {
		c.PTXOps[k] += n
	}
}

func (c *Coverage) addModule(m *ori.Module) {
	ops := map[string]int{}
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Insts {
				ops[in.Op.String()]++
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, n := range ops {
		c.OriOps[k] += n
	}
}

func (c *Coverage) phaseRan(name string, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.PhaseRuns[name]++
	if changed {
		c.PhaseChanges[name]++
	}
}

// PTXOpcodes counts the instructions of PTX text by full mnemonic
// ("add.rn.ftz.f32"), skipping directives, labels, braces and guards.
func PTXOpcodes(src string) map[string]int {
	out := map[string]int{}
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '.' || l[0] == '{' || l[0] == '}' || l[0] == '/' || l[0] == ')' || strings.HasSuffix(l, ":") || strings.HasSuffix(l, ",") || strings.HasSuffix(l, "(") {
			continue
		}
		if l[0] == '@' {
			_, l, _ = strings.Cut(l, " ")
		}
		op, _, _ := strings.Cut(l, " ")
		if strings.HasSuffix(op, ":") {
			continue // a label in front of a directive (.branchtargets)
		}
		op = strings.TrimSuffix(op, ";")
		out[op]++
	}
	return out
}

// Summary returns a human-readable report: counts of distinct kinds, the
// PTX base instructions exercised, and the phases with their change
// counts.
func (c *Coverage) Summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	base := map[string]int{}
	for k, n := range c.PTXOps {
		op, _, _ := strings.Cut(k, ".")
		base[op] += n
	}
	fmt.Fprintf(&b, "coverage over %d programs:\n", c.Programs)
	fmt.Fprintf(&b, "  %d statement kinds, %d distinct PTX instruction forms over %d base instructions, %d Ori opcodes after lowering\n",
		len(c.Stmts), len(c.PTXOps), len(base), len(c.OriOps))
	fmt.Fprintf(&b, "  PTX instructions: %s\n", strings.Join(sortedKeys(base), " "))
	fmt.Fprintf(&b, "  Ori opcodes: %s\n", strings.Join(sortedKeys(c.OriOps), " "))
	type row struct {
		name          string
		runs, changes int
	}
	var rows []row
	for n, r := range c.PhaseRuns {
		rows = append(rows, row{n, r, c.PhaseChanges[n]})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	b.WriteString("  phases (compilations that ran it / changed the IR):\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "    %-34s %8d %8d\n", r.name, r.runs, r.changes)
	}
	return b.String()
}

// Merge adds o's counts into c.
func (c *Coverage) Merge(o *Coverage) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Programs += o.Programs
	for _, p := range [][2]map[string]int{{c.Stmts, o.Stmts}, {c.PTXOps, o.PTXOps}, {c.OriOps, o.OriOps}, {c.PhaseRuns, o.PhaseRuns}, {c.PhaseChanges, o.PhaseChanges}} {
		for k, n := range p[1] {
			p[0][k] += n
		}
	}
}
