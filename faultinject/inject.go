package faultinject

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"orilab/pipeline/ori"
)

// Options restricts an injection.
type Options struct {
	// Funcs names the functions whose instructions may be corrupted; empty
	// means every function of the module. Naming a function the module
	// does not have is an error.
	Funcs []string
}

// Fault is one injected bug, the counterpart of ptxas's 40-byte fault
// record.
type Fault struct {
	// Index is the selection index: the instruction's position in its
	// category's candidate list.
	Index    int      `json:"index"`
	Kind     Kind     `json:"kind"`
	Category Category `json:"-"`
	Func     string   `json:"func"`
	Block    int32    `json:"block"`
	Inst     int32    `json:"inst"` // instruction ID (kept by the mutation)
	// Offset is the memory offset before the mutation, for offset faults
	// (kind 4) only.
	Offset *int64 `json:"offset,omitempty"`
	// Operand is the index of the corrupted operand: results first, then
	// sources, in printed order, from 0; the guard counts as the last
	// operand, as in ptxas's operand array. The post-RA verifier numbers
	// the operands it names the same way (verifyra.OperandNumber), so a
	// fault "in operand 3" is found as "operand 3 reads ...".
	Operand  int   `json:"operand"`
	Correct  int64 `json:"correct"`  // the operand's value before (see mutate.go for the encoding)
	Replaced int64 `json:"replaced"` // and after
	// Before and After are the instruction's text around the mutation.
	Before string `json:"before"`
	After  string `json:"after"`
}

// MarshalJSON adds the kind's string and the category's name.
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	return json.Marshal(struct {
		plain
		KindName string `json:"kind_name"`
		Category string `json:"category"`
	}{plain(f), f.Kind.String(), f.Category.String()})
}

// hexOff formats an offset as the Ori text does.
func hexOff(v int64) string {
	if v < 0 {
		return "-0x" + strconv.FormatUint(uint64(-v), 16)
	}
	return "0x" + strconv.FormatInt(v, 16)
}

// Line returns ptxas's report line for the fault:
//
//	Created a bug at index I : kind K inst # ID [OFF] in operand OP correct val V replaced with W
//
// Decision: K is the kind's string, not its code: the binary's kind
// strings are stored with surrounding blanks (" spill-regill bug "), the
// mark of text spliced into this line. The bracketed offset appears only
// on offset faults, in the Ori text's hex notation.
func (f Fault) Line() string {
	off := ""
	if f.Offset != nil {
		off = " [" + hexOff(*f.Offset) + "]"
	}
	return fmt.Sprintf("Created a bug at index %d : kind %s inst # %d%s in operand %d correct val %d replaced with %d",
		f.Index, f.Kind, f.Inst, off, f.Operand, f.Correct, f.Replaced)
}

// CategoryStat says how one category fared.
type CategoryStat struct {
	Category  Category `json:"-"`
	Name      string   `json:"category"`
	Requested int      `json:"requested"`
	// Candidates is the number of instructions the category could
	// corrupt; Taken how many of them already carried a fault from an
	// earlier category (each instruction receives at most one fault).
	Candidates int `json:"candidates"`
	Taken      int `json:"taken,omitempty"`
	Injected   int `json:"injected"`
}

// Report is the result of an injection.
type Report struct {
	Spec       Spec           `json:"spec"`
	Seed       int64          `json:"seed"`
	Faults     []Fault        `json:"faults"`
	Categories []CategoryStat `json:"categories"` // the active categories, in field order
}

// Lines returns ptxas's report: "Num forced bugs N" (N the number of
// faults actually injected), then one line per fault in injection order.
func (r *Report) Lines() []string {
	ls := []string{fmt.Sprintf("Num forced bugs %d", len(r.Faults))}
	for _, f := range r.Faults {
		ls = append(ls, f.Line())
	}
	return ls
}

// Notes returns one line per category that received fewer faults than
// requested, saying why. ptxas has no such lines; orilab prints them after
// the report.
func (r *Report) Notes() []string {
	var ns []string
	for _, s := range r.Categories {
		if s.Injected >= s.Requested {
			continue
		}
		why := "no candidates"
		switch {
		case s.Candidates > 0 && s.Taken > 0:
			why = fmt.Sprintf("%d candidates, %d of them already carrying a fault", s.Candidates, s.Taken)
		case s.Candidates == 1:
			why = "only 1 candidate"
		case s.Candidates > 0:
			why = fmt.Sprintf("only %d candidates", s.Candidates)
		}
		ns = append(ns, fmt.Sprintf("%s bugs: requested %d, injected %d (%s)", s.Name, s.Requested, s.Injected, why))
	}
	return ns
}

// WriteTo prints the report lines, then the notes, one per line.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, l := range append(r.Lines(), r.Notes()...) {
		k, err := fmt.Fprintln(w, l)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Inject corrupts post-allocation module m in place according to spec,
// with every random choice drawn from a generator seeded with seed: the
// same module, spec and seed give the same faults.
//
// For each active category in field order it collects the candidates
// (collect.go), then draws the requested number of them uniformly,
// re-drawing an instruction that already carries a fault (the FNV-1a set
// of fnv.go, shared by all categories so that every fault has its own
// instruction), and applies each fault as soon as it is drawn
// (mutate.go). A category with too few candidates injects fewer faults;
// the report's Notes say so. Only a module that still holds virtual
// registers, or an unknown function in opts, is an error; both are found
// before anything is modified.
//
// Decision: ptxas injects per function (its injector runs on each code
// object) and seeds from the clock; orilab pools the candidates of all
// selected functions, so a spec asks for the same number of faults
// whatever the module's shape, and takes an explicit seed.
func Inject(m *ori.Module, spec Spec, seed int64, opts Options) (*Report, error) {
	fis, err := prepare(m, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Spec: spec, Seed: seed, Faults: []Fault{}}
	r := newRNG(seed)
	taken := newDedupSet()
	for cat := Category(0); cat < NumCategories; cat++ {
		want := spec.Count(cat)
		if want == 0 {
			continue
		}
		cands := collect(fis, cat)
		st := CategoryStat{Category: cat, Name: cat.String(), Requested: want, Candidates: len(cands)}
		avail := 0
		for _, c := range cands {
			if taken.has(c.key()) {
				st.Taken++
			} else {
				avail++
			}
		}
		for st.Injected < want && avail > 0 {
			idx := r.intn(len(cands))
			if !taken.add(cands[idx].key()) {
				continue // re-roll: that instruction already carries a fault
			}
			avail--
			c := cands[idx]
			f, err := apply(c, r)
			if err != nil {
				return nil, err
			}
			if c.in.EndsBlock() {
				// A guard fault on a branch can turn it unconditional
				// (@!PT becomes @PT): keep the derived edges true.
				if err := c.fi.f.ComputeCFG(); err != nil {
					return nil, fmt.Errorf("faultinject: %s: %v", c.fi.f.Name, err)
				}
			}
			f.Index, f.Category = idx, cat
			rep.Faults = append(rep.Faults, f)
			st.Injected++
		}
		rep.Categories = append(rep.Categories, st)
	}
	return rep, nil
}

// InjectCompat is the --ptxas-compat behaviour: look for bugspec.txt in
// dir (the working directory for ptxas), print CompatNoFileMessage when
// there is none and return a nil report, otherwise inject with a
// clock-derived seed (CompatSeed) and print the report lines to stdout as
// ptxas does. The returned report carries the seed so that the run can be
// replayed with Inject.
func InjectCompat(m *ori.Module, dir string, opts Options, stdout io.Writer) (*Report, error) {
	sp, ok, err := ReadCompatSpec(dir, stdout)
	if err != nil || !ok {
		return nil, err
	}
	rep, err := Inject(m, sp, CompatSeed(), opts)
	if err != nil {
		return nil, err
	}
	for _, l := range rep.Lines() {
		fmt.Fprintln(stdout, l)
	}
	return rep, nil
}
