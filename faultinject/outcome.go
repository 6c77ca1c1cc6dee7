package faultinject

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Outcome is what became of a trial's faults: caught by one of the
// verifiers, caught by executing the kernel, masked, or the compiler fell
// over.
type Outcome uint8

const (
	// OutcomeNone is "not decided": a verifier that found nothing returns
	// it, and a trial without any fault keeps it.
	OutcomeNone        Outcome = iota
	CaughtStructural           // the IR verifier (ori.Verify: CFG, signatures, ranges, alignment)
	CaughtReachingDefs         // the post-allocation reaching-definitions verifier
	CaughtHazard               // the scoreboard/hazard verifier
	CaughtMismatch             // execution: results differ from the expected ones
	CaughtMemFault             // execution: the simulator raised a fault (bad address, misaligned access, trap)
	CaughtHang                 // execution: the step limit was reached
	Masked                     // execution gave the expected results
	CompilerCrash              // a later phase, a verifier or the simulator panicked or failed on the faulty IR
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{
	OutcomeNone:        "none",
	CaughtStructural:   "verifier:structural",
	CaughtReachingDefs: "verifier:reaching-defs",
	CaughtHazard:       "verifier:hazard",
	CaughtMismatch:     "exec:mismatch",
	CaughtMemFault:     "exec:memory-fault",
	CaughtHang:         "exec:hang",
	Masked:             "masked",
	CompilerCrash:      "crash",
}

// short column headers of the text matrix
var outcomeShort = [NumOutcomes]string{
	CaughtStructural:   "struct",
	CaughtReachingDefs: "rdefs",
	CaughtHazard:       "hazard",
	CaughtMismatch:     "mismatch",
	CaughtMemFault:     "memfault",
	CaughtHang:         "hang",
	Masked:             "masked",
	CompilerCrash:      "crash",
}

func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome%d", int(o))
}

// ParseOutcome is the inverse of String.
func ParseOutcome(s string) (Outcome, error) {
	for o := Outcome(0); o < NumOutcomes; o++ {
		if outcomeNames[o] == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown outcome %q", s)
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	*o = v
	return err
}

// ByVerifier reports whether a verifier caught the fault.
func (o Outcome) ByVerifier() bool { return o >= CaughtStructural && o <= CaughtHazard }

// ByExecution reports whether only execution caught the fault.
func (o Outcome) ByExecution() bool { return o >= CaughtMismatch && o <= CaughtHang }

// Escaped reports whether the fault changed what the kernel computes (or
// made it fault or hang) while every verifier accepted it: the faults a
// stronger verifier should catch. Masked faults are not escapes: with this
// input they change nothing observable, and the matrix counts them apart.
func (o Outcome) Escaped() bool { return o.ByExecution() }

// Matrix counts faults by kind and outcome: Counts[k][o] is the number of
// faults of kind k whose trial ended with outcome o. Row 0 is unused.
type Matrix struct {
	Counts [NumKinds + 1][NumOutcomes]int
}

// Add records one fault.
func (m *Matrix) Add(k Kind, o Outcome) {
	if k >= 1 && k <= NumKinds && o < NumOutcomes {
		m.Counts[k][o]++
	}
}

// Total returns the number of faults of kind k (0: of every kind).
func (m *Matrix) Total(k Kind) int {
	n := 0
	for kk := Kind(1); kk <= NumKinds; kk++ {
		if k != 0 && kk != k {
			continue
		}
		for _, c := range m.Counts[kk] {
			n += c
		}
	}
	return n
}

// column returns the count of outcome o over kind k (0: every kind).
func (m *Matrix) column(k Kind, o Outcome) int {
	if k != 0 {
		return m.Counts[k][o]
	}
	n := 0
	for kk := Kind(1); kk <= NumKinds; kk++ {
		n += m.Counts[kk][o]
	}
	return n
}

func (m *Matrix) caught(k Kind) int {
	n := 0
	for o := CaughtStructural; o <= CaughtHazard; o++ {
		n += m.column(k, o)
	}
	return n
}

// Table renders the matrix as aligned text: one row per kind that has
// faults, then the totals; the kind column is left-aligned, the counts
// right-aligned. "verifier%" is the share of faults a verifier caught.
func (m *Matrix) Table() string {
	header := []string{"kind"}
	for o := CaughtStructural; o < NumOutcomes; o++ {
		header = append(header, outcomeShort[o])
	}
	header = append(header, "total", "verifier%")
	rows := [][]string{header}
	row := func(label string, k Kind) {
		r := []string{label}
		for o := CaughtStructural; o < NumOutcomes; o++ {
			r = append(r, strconv.Itoa(m.column(k, o)))
		}
		t := m.Total(k)
		pct := 0.0
		if t > 0 {
			pct = 100 * float64(m.caught(k)) / float64(t)
		}
		rows = append(rows, append(r, strconv.Itoa(t), strconv.FormatFloat(pct, 'f', 1, 64)))
	}
	for k := Kind(1); k <= NumKinds; k++ {
		if m.Total(k) > 0 {
			row(fmt.Sprintf("%d %s", k, k), k)
		}
	}
	row("total", 0)
	width := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == 0 {
				b.WriteString(c + strings.Repeat(" ", width[0]-len(c)))
				continue
			}
			b.WriteString(strings.Repeat(" ", 2+width[i]-len(c)) + c)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// matrixRow is one kind in the JSON form.
type matrixRow struct {
	Kind     Kind           `json:"kind"`
	Name     string         `json:"name"`
	Outcomes map[string]int `json:"outcomes"`
	Total    int            `json:"total"`
	Verifier int            `json:"caught_by_verifier"`
}

// MarshalJSON writes every kind (zero rows included, so the shape never
// changes) with its count per outcome name, and the totals.
func (m Matrix) MarshalJSON() ([]byte, error) {
	mk := func(k Kind, name string) matrixRow {
		r := matrixRow{Kind: k, Name: name, Outcomes: map[string]int{}, Total: m.Total(k), Verifier: m.caught(k)}
		for o := CaughtStructural; o < NumOutcomes; o++ {
			r.Outcomes[o.String()] = m.column(k, o)
		}
		return r
	}
	var v struct {
		Kinds []matrixRow `json:"kinds"`
		Total matrixRow   `json:"total"`
	}
	for k := Kind(1); k <= NumKinds; k++ {
		v.Kinds = append(v.Kinds, mk(k, k.String()))
	}
	v.Total = mk(0, "total")
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Matrix) UnmarshalJSON(b []byte) error {
	var v struct {
		Kinds []matrixRow `json:"kinds"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Matrix{}
	for _, r := range v.Kinds {
		if r.Kind < 1 || r.Kind > NumKinds {
			return fmt.Errorf("matrix: kind %d out of range", r.Kind)
		}
		for name, n := range r.Outcomes {
			o, err := ParseOutcome(name)
			if err != nil {
				return fmt.Errorf("matrix: %v", err)
			}
			m.Counts[r.Kind][o] = n
		}
	}
	return nil
}
