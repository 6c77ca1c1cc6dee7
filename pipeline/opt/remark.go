package opt

import (
	"fmt"

	"orilab/pipeline/ori"
)

// Remarks, after LLVM's -pass-remarks: a pass that weighs a rewrite says
// what it decided and, when it declined, why, with the code the decision
// procedure already computes (OriLoopUnrolling's rejection codes are the
// wiki's). They answer "why did this phase change nothing?" without a
// debugger: the phase manager keeps them in the phase's snapshot, orilab
// compile --remarks prints them and the workbench shows them on the
// phase's line.

// Remark is one decision of a pass about one place in a function.
type Remark struct {
	Func string // the function the decision is about
	// Applied is true when the pass made the rewrite (LLVM's "passed"
	// remark), false when it declined (a "missed" one).
	Applied bool
	// Code is the pass's reason code for a declined rewrite (for
	// OriLoopUnrolling the wiki's rejection code); 0 when applied.
	Code int
	// Where names the place: "loop BB3".
	Where string
	// Line is the PTX source line of the place (0 when unknown), so a
	// front door can print FILE:LINE like a compiler diagnostic.
	Line int32
	// Message says what happened or why not.
	Message string
}

func (r Remark) String() string {
	if r.Applied {
		return fmt.Sprintf("%s: %s %s", r.Func, r.Where, r.Message)
	}
	return fmt.Sprintf("%s: %s rejected, code %d: %s", r.Func, r.Where, r.Code, r.Message)
}

// Remark records r about f when the context collects remarks (the phase
// manager always does; unit tests may not).
func (c *Context) Remark(f *ori.Func, r Remark) {
	if c == nil || c.Remarks == nil {
		return
	}
	r.Func = f.Name
	*c.Remarks = append(*c.Remarks, r)
}
