package modversions

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requirements returns module -> version from go.mod's require lines, with replace directives applied.
func requirements(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	required, replaced := map[string]string{}, map[string]string{}
	block := ""
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(strings.SplitN(scanner.Text(), "//", 2)[0])
		switch {
		case line == ")":
			block = ""
		case strings.HasSuffix(line, "("):
			block = strings.TrimSpace(strings.TrimSuffix(line, "("))
		case strings.HasPrefix(line, "require ") || strings.HasPrefix(line, "replace "):
			parse(strings.Fields(line)[0], strings.Fields(line)[1:], required, replaced)
		case block == "require" || block == "replace":
			parse(block, strings.Fields(line), required, replaced)
		}
	}
	for module, version := range replaced {
		if _, ok := required[module]; ok {
			required[module] = version
		}
	}
	return required
}

func parse(kind string, fields []string, required, replaced map[string]string) {
	switch {
	case kind == "require" && len(fields) == 2:
		required[fields[0]] = fields[1]
	case kind == "replace" && len(fields) >= 4 && fields[len(fields)-3] == "=>":
		replaced[fields[0]] = fields[len(fields)-1]
	}
}

func TestK8sModulesMatchTheControlPlane(t *testing.T) {
	ours := requirements(t, filepath.Join("..", "..", "go.mod"))
	controlPlane := requirements(t, filepath.Join("..", "..", "..", "sandbox", "control-plane", "gomod", "go.mod"))
	checked := 0
	for module, version := range ours {
		if !strings.HasPrefix(module, "k8s.io/") && !strings.HasPrefix(module, "sigs.k8s.io/") {
			continue
		}
		want, ok := controlPlane[module]
		if !ok {
			continue
		}
		checked++
		if version != want {
			t.Errorf("%s: go/go.mod requires %s, the control plane builds with %s; align go/go.mod (go get %s@%s && go mod tidy)", module, version, want, module, want)
		}
	}
	if ours["k8s.io/cloud-provider"] == "" || checked < 5 {
		t.Fatalf("expected k8s.io/cloud-provider and the k8s.io staging modules in both go.mod files; compared %d", checked)
	}
}
