package sass

import "testing"

// allBits and belowCtrl say how much of a measured word's high half a
// table pins: all of it, or only the bits below the control word (105 and
// up), for tables whose words were read with nvdisasm -b rather than taken
// from a ptxas cubin.
const (
	allBits   = ^uint64(0)
	belowCtrl = 1<<(105-64) - 1
)

// checkMeasuredWord: the Ori instruction ori encodes for arch to the word
// lo:hi (hi compared under hiMask), prints as nvdisasm printed that word
// (text), and decodes back to the same text. With ctrlFromWord the
// instruction takes its control word from lo:hi first, for tables whose
// Ori text carries none.
func checkMeasuredWord(t *testing.T, arch int, ori string, lo, hi, hiMask uint64, text string, ctrlFromWord bool) {
	t.Helper()
	f := parseFunc(t, "BB0:\n\t#1 "+ori+" ;\n")
	in := f.Blocks[0].Insts[0]
	if ctrlFromWord {
		in.Ctrl = decodeCtrl(Word{lo, hi})
	}
	w, err := Encode(in, arch, 0, nil)
	if err != nil {
		t.Errorf("sm_%d %s: %v", arch, ori, err)
		return
	}
	if w.Lo != lo || w.Hi&hiMask != hi {
		if hiMask == allBits {
			t.Errorf("sm_%d %s: word %v, ptxas wrote %v", arch, ori, w, Word{lo, hi})
		} else {
			t.Errorf("sm_%d %s: word %v, want %016x %016x below the control bits", arch, ori, w, lo, hi)
		}
	}
	if got, err := InstTextRaw(in, arch); err != nil || Normalize(got) != Normalize(text) {
		t.Errorf("sm_%d %s: prints %q (%v), nvdisasm %q", arch, ori, got, err, text)
	}
	d, err := Decode(w, arch, DecodeContext{Raw: true})
	if err != nil {
		t.Errorf("sm_%d %s: %v", arch, ori, err)
		return
	}
	if got, _ := InstTextRaw(d, arch); Normalize(got) != Normalize(text) {
		t.Errorf("sm_%d %s: decodes as %q, nvdisasm %q", arch, ori, got, text)
	}
}
