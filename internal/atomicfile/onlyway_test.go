package atomicfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// TestNoOtherWayToWriteFiles keeps Write the only output function: no
// non-test file outside this package may call a function that creates or
// writes a file by path. (Tests may, to set up their inputs.)
func TestNoOtherWayToWriteFiles(t *testing.T) {
	forbidden := map[string]bool{
		"os.WriteFile": true, "os.Create": true, "os.OpenFile": true,
		"os.CreateTemp": true, "ioutil.WriteFile": true, "ioutil.TempFile": true,
	}
	root := testenv.RepoRoot(t)
	fset := token.NewFileSet()
	var bad []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.Dir(path) == filepath.Join(root, "internal", "atomicfile") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && forbidden[x.Name+"."+sel.Sel.Name] {
				bad = append(bad, fset.Position(sel.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	for _, b := range bad {
		rel, _ := filepath.Rel(root, b)
		t.Errorf("%s: write output files with atomicfile.Write", rel)
	}
}
