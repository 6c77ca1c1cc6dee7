package pipeline

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestNoFileCycles type-checks the package's own (non-test) files and
// builds a graph with an edge from file A to file B whenever A uses a
// package-level name (a function, type, variable, constant, method or
// field) declared in B. The package's files must form no loop: a loop is
// how the phase table, the phases and the manager grew into one knot
// (phases.go, backend.go and expand.go fed a map from init(), manager.go
// and sites.go called each other).
func TestNoFileCycles(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("orilab/pipeline", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	fileOf := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	edges := map[string]map[string]bool{}
	addEdge := func(from token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		// Locals and parameters are not package-level names.
		if v, ok := obj.(*types.Var); ok && !v.IsField() && obj.Parent() != pkg.Scope() {
			return
		}
		if _, ok := obj.(*types.Label); ok {
			return
		}
		if obj.Parent() != nil && obj.Parent() != pkg.Scope() && obj.Parent() != types.Universe {
			return // declared inside a function
		}
		a, b := fileOf(from), fileOf(obj.Pos())
		if a == b {
			return
		}
		if edges[a] == nil {
			edges[a] = map[string]bool{}
		}
		edges[a][b] = true
	}
	for id, obj := range info.Uses {
		addEdge(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		addEdge(sel.Sel.Pos(), s.Obj())
	}
	// Tarjan's strongly connected components: any with two or more files
	// is a loop.
	var (
		index   = map[string]int{}
		low     = map[string]int{}
		onStack = map[string]bool{}
		stack   []string
		next    int
		loops   []string
	)
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for w := range edges[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				sort.Strings(comp)
				loops = append(loops, strings.Join(comp, ", "))
			}
		}
	}
	var all []string
	for _, f := range files {
		all = append(all, fileOf(f.Pos()))
	}
	sort.Strings(all)
	for _, f := range all {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	for _, l := range loops {
		t.Errorf("files that depend on each other in a loop: %s", l)
	}
	if len(edges) < 5 {
		t.Fatalf("only %d files use names of other files: the graph is not being built", len(edges))
	}
}
