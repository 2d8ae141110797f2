package simcloudtest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The contract modules (go/contract/*) share this package and providerkit/poll through their replace of
// ccm-sandbox/go (docs/adr/0005-go-modules.md, revision 2). An import of anything but the standard library
// and each other would make every contract module compile it, with versions chosen by the CCM's go.mod.
func TestTheSharedTestPackagesImportOnlyTheStandardLibrary(t *testing.T) {
	shared := map[string]string{
		".":                   "ccm-sandbox/go/internal/simcloudtest",
		"../providerkit/poll": "ccm-sandbox/go/internal/providerkit/poll",
	}
	allowed := map[string]bool{}
	for _, path := range shared {
		allowed[path] = true
	}
	for dir := range shared {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				first, _, _ := strings.Cut(path, "/")
				if strings.Contains(first, ".") || (first == "ccm-sandbox" && !allowed[path]) {
					t.Errorf("%s imports %s: the shared test packages import only the standard library", file, path)
				}
			}
		}
	}
}
