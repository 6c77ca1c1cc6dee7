package sass

import (
	"fmt"
	"strings"
	"testing"

	"orilab/pipeline/ori"
)

// TestWriteLine: the hand-written line formatter gives exactly what the
// fmt formats it replaced give, including long texts, wide addresses and
// unset control words.
func TestWriteLine(t *testing.T) {
	ctrls := []ori.Ctrl{{}, {Set: true, Stall: 4, Yield: true, WrBar: 1, RdBar: -1}, {Set: true, Stall: 15, Wait: 0x3f}}
	for _, addr := range []int{0, 0x10, 0xfff0, 0x12340} {
		for _, guard := range []string{"", "@P0", "@!PT"} {
			for _, text := range []string{"EXIT ;", "IMAD.WIDE.U32 R2, R3, 0x4, R4 ;", strings.Repeat("X", 70) + " ;"} {
				for _, c := range ctrls {
					want := fmt.Sprintf("        /*%04x*/%17s  %s", addr, guard, text)
					if c.Set {
						want = fmt.Sprintf("        /*%04x*/%17s  %-*s /* %s */", addr, guard, ctrlColumn, text, c)
					}
					var b strings.Builder
					writeLine(&b, addr, guard, text, c)
					if got := b.String(); got != want+"\n" {
						t.Errorf("writeLine(%#x, %q, %q, %v) =\n%q\nwant\n%q", addr, guard, text, c, got, want+"\n")
					}
				}
			}
		}
	}
}
