package ptx

import (
	"os"
	"path/filepath"
	"testing"
)

// largestCorpusFile returns the biggest .ptx under corpus/gpuocelot.
func largestCorpusFile(b *testing.B) (string, []byte) {
	root, files := corpusFiles(b)
	var best string
	var size int64
	for _, rel := range files {
		if filepath.Dir(rel) == "." || rel[:9] != "gpuocelot" {
			continue
		}
		st, err := os.Stat(filepath.Join(root, rel))
		if err == nil && st.Size() > size {
			best, size = rel, st.Size()
		}
	}
	src, err := os.ReadFile(filepath.Join(root, best))
	if err != nil {
		b.Fatal(err)
	}
	return best, src
}

// BenchmarkParseLargest parses (lex, parse, check) the largest gpuocelot
// file; the MB/s column is the front end's throughput on one core.
func BenchmarkParseLargest(b *testing.B) {
	name, src := largestCorpusFile(b)
	b.Logf("file: %s (%d bytes)", name, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(name, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLexLargest measures the lexer alone on the same file.
func BenchmarkLexLargest(b *testing.B) {
	name, src := largestCorpusFile(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		d := &diag{file: name, src: src}
		lex(d, src)
	}
}

// BenchmarkPrintLargest measures the printer on the same file.
func BenchmarkPrintLargest(b *testing.B) {
	name, src := largestCorpusFile(b)
	m, err := Parse(name, src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Print(m)
	}
}
