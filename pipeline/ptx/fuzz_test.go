package ptx

import (
	"os"
	"path/filepath"
	"testing"
)

// addCorpusSeeds seeds a fuzz target with every corpus file.
func addCorpusSeeds(f *testing.F) {
	root, files := corpusFiles(f)
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\tret;\n}\n"))
	f.Add([]byte("0f3F80000 0d1 0x 0b \"abc /* x"))
}

// FuzzLex checks that the lexer never panics, always ends with EOF and
// produces tokens in source order.
func FuzzLex(f *testing.F) {
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		d := &diag{file: "fuzz.ptx", src: src}
		toks := lex(d, src)
		if len(toks) == 0 || toks[len(toks)-1].kind != tEOF {
			t.Fatal("token stream does not end with EOF")
		}
		for i := 1; i < len(toks); i++ {
			a, b := toks[i-1].pos, toks[i].pos
			if b.Line < a.Line || b.Line == a.Line && b.Col < a.Col {
				t.Fatalf("token %d at %v precedes token %d at %v", i, b, i-1, a)
			}
		}
		for _, e := range d.errs {
			if !e.Pos.IsValid() {
				t.Fatalf("error without position: %v", e)
			}
		}
	})
}

// FuzzParse checks that parsing never panics, that every diagnostic has a
// position, and that whatever parses prints to text that parses back to
// the same printout.
func FuzzParse(f *testing.F) {
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("fuzz.ptx", src)
		if err != nil {
			for _, e := range err.(ErrorList) {
				if !e.Pos.IsValid() {
					t.Fatalf("diagnostic without position: %v", e)
				}
			}
		}
		if m == nil {
			return
		}
		out1 := Print(m)
		m2, err := ParseSyntax("printed.ptx", []byte(out1))
		if err != nil {
			t.Fatalf("printout does not parse: %v\nprintout:\n%s", err, out1)
		}
		if out2 := Print(m2); out2 != out1 {
			t.Fatalf("print is not a fixed point:\n%s\n----\n%s", out1, out2)
		}
	})
}
