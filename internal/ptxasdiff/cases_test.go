package ptxasdiff

import (
	"archive/tar"
	"compress/bzip2"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// ptxFiles returns every .ptx under root as cases named by their path
// relative to base.
func ptxFiles(tb testing.TB, base, root string) []Case {
	var out []Case
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ptx") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		out = append(out, Case{Name: filepath.ToSlash(rel), Src: src})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// sharedCorpus is the shared corpus (ZLUDA and gpuocelot).
func sharedCorpus(tb testing.TB) []Case {
	shared := testenv.Shared(tb)
	var cs []Case
	for _, sub := range []string{"ZLUDA", "gpuocelot"} {
		cs = append(cs, ptxFiles(tb, shared, filepath.Join(shared, "corpus", sub))...)
	}
	if len(cs) < 300 {
		tb.Fatalf("found only %d corpus files; the corpus is incomplete", len(cs))
	}
	return cs
}

// corpusCases is the shared corpus and every .ptx under the repository's
// testdata directories.
func corpusCases(tb testing.TB) []Case {
	cs := sharedCorpus(tb)
	root := testenv.RepoRoot(tb)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			cs = append(cs, ptxFiles(tb, root, p)...)
			return fs.SkipDir
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// rejectedCases are the 677 programs of ../shared/hwtruth/fuzz-h100.tgz
// that NVIDIA's JIT refused (its rejected.tsv). The tarball holds only the
// accepted programs, so testdata keeps these, made by `orilab fuzz --seed
// 5550000 --count 2000 --emit` at commit e83360d (bzip2: 0.5 MB).
func rejectedCases(tb testing.TB) []Case {
	f, err := os.Open("testdata/rejected-5550000.tar.bz2")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(bzip2.NewReader(f))
	var out []Case
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		if !strings.HasSuffix(h.Name, ".ptx") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, Case{Name: h.Name, Src: b})
	}
	if len(out) != 677 {
		tb.Fatalf("found %d rejected programs, want 677", len(out))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func jobs() int {
	n := runtime.NumCPU()
	if n < 2 {
		n = 2
	}
	return n
}
