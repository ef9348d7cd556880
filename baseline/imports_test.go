package baseline

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The package sits below selection and beside score (DESIGN.md): its code
// imports only these packages of the module, never model, dataset or
// anything with files.
func TestImportsLayer(t *testing.T) {
	allowed := map[string]bool{
		"subspace": true, "svd": true, "kernels": true, "linalg": true, "score": true,
		"internal/folds": true, "internal/numerr": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("glob: %v %v", files, err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ast, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, "github.com/grlgq/grlgq/"); ok && !allowed[rest] {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}
