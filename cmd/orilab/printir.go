package main

import (
	"flag"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"orilab/internal/abdiff"
	"orilab/internal/irdiff"
	"orilab/internal/suggest"
	"orilab/pipeline"
	"orilab/pipeline/ori"
)

// printIR is what orilab compile's --print-after, --print-changed and
// --func ask for: the IR after chosen phases, as LLVM's -print-after,
// -print-changed[=diff] and -filter-print-funcs print it.
type printIR struct {
	after   string      // --print-after: "" (none), "all", or phases
	changed changedFlag // --print-changed: "", "full" or "diff"
	fn      string      // --func: one function's IR only
	html    string      // --html: the page of every phase that changed the IR
	remarks remarksFlag // --remarks: "" (none), "all" or phases
}

// remarksFlag is --remarks, which takes an optional value: --remarks
// prints every phase's remarks, --remarks=LIST those of the phases named.
type remarksFlag string

func (r *remarksFlag) String() string { return string(*r) }

func (r *remarksFlag) Set(v string) error {
	switch v {
	case "true":
		*r = "all"
	case "false":
		*r = ""
	case "":
		return fmt.Errorf("want --remarks or --remarks=PHASE[+PHASE...]")
	default:
		*r = remarksFlag(v)
	}
	return nil
}

// IsBoolFlag lets --remarks stand without a value.
func (r *remarksFlag) IsBoolFlag() bool { return true }

// changedFlag is --print-changed, which takes an optional value:
// --print-changed prints the IR after each phase that changed it,
// --print-changed=diff a unified diff against the IR before it.
type changedFlag string

func (c *changedFlag) String() string { return string(*c) }

func (c *changedFlag) Set(v string) error {
	switch v {
	case "true", "full":
		*c = "full"
	case "diff":
		*c = "diff"
	case "false":
		*c = ""
	default:
		return fmt.Errorf("want --print-changed or --print-changed=diff, not %q", v)
	}
	return nil
}

// IsBoolFlag lets --print-changed stand without a value.
func (c *changedFlag) IsBoolFlag() bool { return true }

func addPrintFlags(fs *flag.FlagSet) *printIR {
	p := &printIR{}
	fs.StringVar(&p.after, "print-after", "", "print the IR after each phase of `LIST` ('+' or ','-separated names, or all) to stdout")
	fs.Var(&p.changed, "print-changed", "print the IR after each phase that changed it; =diff prints a unified diff against the IR before it")
	fs.StringVar(&p.fn, "func", "", "with --print-after, --print-changed or --html: only function `NAME`")
	fs.Var(&p.remarks, "remarks", "print to stderr what the passes decided and why they declined (a loop not unrolled, with its rejection code); =LIST only for those phases ('+'-separated)")
	fs.StringVar(&p.html, "html", "", "write `FILE`: one HTML page with the IR after lowering and after every phase that changed it, side by side, changes highlighted")
	return p
}

// active reports whether anything is to be printed.
func (p *printIR) active() bool { return p.after != "" || p.changed != "" }

// phases returns the phase indices --print-after names (nil for all).
func (p *printIR) phases() (map[int]bool, error) {
	return phaseList("--print-after", p.after)
}

// phaseList returns the phase indices a '+' or ','-separated list
// names, nil for "" or all.
func phaseList(flagName, list string) (map[int]bool, error) {
	if list == "" || strings.EqualFold(list, "all") {
		return nil, nil
	}
	set := map[int]bool{}
	for _, n := range strings.FieldsFunc(list, func(r rune) bool { return r == '+' || r == ',' }) {
		i, err := pipeline.LookupPhase(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flagName, err)
		}
		set[i] = true
	}
	return set, nil
}

// funcText returns the text of function fn in m (the whole module for
// ""), and whether m has it.
func funcText(m *ori.Module, fn string) (string, bool) { return abdiff.FuncText(m, fn) }

// checkFunc reports an unknown --func name, with the closest one.
func (p *printIR) checkFunc(m *ori.Module) error {
	if p.fn == "" || m.Func(p.fn) != nil {
		return nil
	}
	var names []string
	best, bestD := "", 1<<30
	for _, f := range m.Funcs {
		names = append(names, f.Name)
		if d := suggest.Distance(p.fn, f.Name, 0); d < bestD {
			best, bestD = f.Name, d
		}
	}
	if bestD <= max(1, len(p.fn)/3) {
		return fmt.Errorf("--func %s: no such function (did you mean %s?)", p.fn, best)
	}
	sort.Strings(names)
	return fmt.Errorf("--func %s: no such function; the module has %s", p.fn, strings.Join(names, ", "))
}

// write prints the IR the flags ask for: a header per phase, then the
// function's (or module's) IR after it, or its diff against the IR
// before it. Unchanged phases are left out by --print-changed; phases
// that did not run have no IR to print.
func (p *printIR) write(w io.Writer, lowered *ori.Module, snaps []*pipeline.Snapshot) error {
	only, err := p.phases()
	if err != nil {
		return err
	}
	if err := p.checkFunc(lowered); err != nil {
		return err
	}
	what := "the module"
	if p.fn != "" {
		what = p.fn
	}
	prev, _ := funcText(lowered, p.fn)
	if p.changed != "" {
		// As LLVM's -print-changed does, the IR it starts from comes
		// first, so that the first diff has something to apply to.
		fmt.Fprintf(w, "// *** IR of %s after lowering ***\n%s\n", what, prev)
	}
	for _, s := range snaps {
		if s.Module == nil {
			continue
		}
		text, ok := funcText(s.Module, p.fn)
		if !ok {
			continue // inlined or removed by now
		}
		changed := text != prev
		before := prev
		prev = text
		ran := s.Status == pipeline.StatusChanged || s.Status == pipeline.StatusUnchanged
		if !ran || only != nil && !only[s.Index] || p.changed != "" && !changed {
			continue
		}
		note := "unchanged"
		if changed {
			note = "changed"
		}
		fmt.Fprintf(w, "// *** IR of %s after #%d %s (%s) ***\n", what, s.Index, s.Name, note)
		if p.changed == "diff" {
			io.WriteString(w, irdiff.Unified(before, text, "before "+s.Name, "after "+s.Name, 3))
		} else {
			io.WriteString(w, text)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// writeRemarks prints the remarks of the phases --remarks names (of
// --func's function only, when given) as compiler diagnostics:
// "FILE:LINE: remark: #23 OriLoopUnrolling: FUNC: loop BB3 rejected,
// code 11: ...". It returns how many it printed.
func (p *printIR) writeRemarks(w io.Writer, file string, lowered *ori.Module, snaps []*pipeline.Snapshot) (int, error) {
	only, err := phaseList("--remarks", string(p.remarks))
	if err != nil {
		return 0, err
	}
	if err := p.checkFunc(lowered); err != nil {
		return 0, err
	}
	n := 0
	for _, s := range snaps {
		if only != nil && !only[s.Index] {
			continue
		}
		for _, r := range s.Remarks {
			if p.fn != "" && r.Func != p.fn {
				continue
			}
			where := file
			if r.Line > 0 {
				where = fmt.Sprintf("%s:%d", file, r.Line)
			}
			fmt.Fprintf(w, "%s: remark: #%d %s: %s\n", where, s.Index, s.Name, r)
			n++
		}
	}
	return n, nil
}

// writeHTML writes one self-contained HTML page with the IR (of one
// function, or the module) after lowering and after every phase that
// changed it, side by side in columns as Go's GOSSAFUNC ssa.html shows
// SSA passes: in each column the lines the phase added or rewrote are
// highlighted and the lines it removed are struck through.
func (p *printIR) writeHTML(w io.Writer, file string, lowered *ori.Module, snaps []*pipeline.Snapshot) error {
	if err := p.checkFunc(lowered); err != nil {
		return err
	}
	what := "the module"
	if p.fn != "" {
		what = p.fn
	}
	type column struct {
		title string
		ops   []irdiff.Op
	}
	prev, _ := funcText(lowered, p.fn)
	first := column{title: "after lowering"}
	for _, l := range irdiff.Lines(prev) {
		first.ops = append(first.ops, irdiff.Op{Kind: irdiff.Same, Old: l, New: l})
	}
	cols := []column{first}
	for _, s := range snaps {
		if s.Module == nil {
			continue
		}
		text, ok := funcText(s.Module, p.fn)
		if !ok || text == prev {
			continue
		}
		cols = append(cols, column{title: fmt.Sprintf("#%d %s", s.Index, s.Name), ops: irdiff.Align(irdiff.Lines(prev), irdiff.Lines(text))})
		prev = text
	}
	esc := html.EscapeString
	fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>orilab: %s in %s</title>
<style>
body { font-family: sans-serif; margin: 8px; }
.cols { display: flex; gap: 8px; overflow-x: auto; align-items: flex-start; }
.col { border: 1px solid #999; flex: none; }
.col h2 { font-size: 13px; margin: 0; padding: 4px; background: #eee; position: sticky; top: 0; }
pre { font-size: 12px; margin: 0; padding: 4px; }
.add { background: #cfc; }
.del { background: #fcc; text-decoration: line-through; }
</style></head><body>
<h1>%s: %s, %d phases changed it</h1>
<p>Each column is the IR after a phase that changed it; green lines are new or rewritten, red ones removed. Written by orilab compile --html.</p>
<div class="cols">
`, esc(what), esc(file), esc(file), esc(what), len(cols)-1)
	for _, c := range cols {
		fmt.Fprintf(w, "<div class=\"col\"><h2>%s</h2><pre>", esc(c.title))
		for _, o := range c.ops {
			switch o.Kind {
			case irdiff.Same:
				fmt.Fprintf(w, "%s\n", esc(o.New))
			case irdiff.Removed:
				fmt.Fprintf(w, "<span class=\"del\">%s</span>\n", esc(o.Old))
			default:
				fmt.Fprintf(w, "<span class=\"add\">%s</span>\n", esc(o.New))
			}
		}
		fmt.Fprintln(w, "</pre></div>")
	}
	fmt.Fprintln(w, "</div></body></html>")
	return nil
}
