// Package simcloudtest starts a real simcloud process (the repository's simulator/cli/main.ts, run by the
// project's pinned Node) for the tests of one Go package, and stops it when they are done:
//
//	var sim *simcloudtest.Server
//
//	func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }
//
// The process listens on 127.0.0.1 on a port of its choosing, keeps its store in memory and runs without
// a data plane (no listeners for load balancer VIPs), so concurrent test runs never collide. It validates its
// answers against their response schemas (SIMCLOUD_VALIDATE_RESPONSES=1).
package simcloudtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a running simcloud process.
type Server struct {
	// URL is the API endpoint, e.g. http://127.0.0.1:40123.
	URL string
	// Token is the project token for /v1; AdminToken is for /_sim.
	Token      string
	AdminToken string
	*process
}

// process is a Node process of the repository's, its stderr kept.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	output bytes.Buffer
}

var listening = regexp.MustCompile(`simcloud listening on (http://127\.0\.0\.1:\d+)`)

// RepoRoot is the repository holding simulator/cli/main.ts, searched upwards from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "simulator", "cli", "main.ts")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("simulator/cli/main.ts not found above the working directory")
		}
		dir = parent
	}
}

func secret(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// Start runs `simcloud serve` and waits until it listens (at most 60 s).
func Start(extraArgs ...string) (*Server, error) {
	s := &Server{Token: secret("go-test-token"), AdminToken: secret("go-test-admin")}
	args := append([]string{
		"simulator/cli/main.ts", "serve", "--host=127.0.0.1", "--port=0",
		"--token=" + s.Token, "--admin-token=" + s.AdminToken, "--no-dataplane", "--quiet", "--delay-ms=20",
	}, extraArgs...)
	// Every answer is checked against its route's response schema: one that does not match is a 500 naming the
	// field (simulator/server/response-check.ts), so the SDK call that read it fails the test.
	p, lines, err := startNode(args, []string{"SIMCLOUD_VALIDATE_RESPONSES=1"}, listening)
	if err != nil {
		return nil, err
	}
	s.process, s.URL = p, lines[0][1]
	return s, nil
}

// startNode runs a script of the repository's with the pinned Node and waits (at most 60 s) until its stdout has
// printed a line matching each of want, in order; it returns each line's submatches.
func startNode(args, env []string, want ...*regexp.Regexp) (*process, [][]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, nil, err
	}
	node := filepath.Join(root, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		return nil, nil, fmt.Errorf("%s is missing: run `node scripts/bootstrap.mjs` in %s first", node, root)
	}
	p := &process{exited: make(chan struct{})}
	p.cmd = exec.Command(node, args...)
	p.cmd.Dir = root
	p.cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	p.cmd.SysProcAttr = dieWithParent()
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	p.cmd.Stderr = &lockedWriter{p: p}
	if err := p.cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	lines, err := p.waitForLines(args[0], stdout, want)
	if err != nil {
		p.Stop()
		return nil, nil, err
	}
	return p, lines, nil
}

type lockedWriter struct{ p *process }

// Write appends to the output buffer under its lock (stderr is copied from another goroutine).
func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.output.Write(b)
}

// Output is what the process wrote to stderr so far.
func (p *process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output.String()
}

func (p *process) waitForLines(name string, stdout io.Reader, want []*regexp.Regexp) ([][]string, error) {
	found := make(chan [][]string, 1)
	go func() {
		var got [][]string
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if len(got) < len(want) {
				if m := want[len(got)].FindStringSubmatch(scanner.Text()); m != nil {
					if got = append(got, m); len(got) == len(want) {
						found <- got
					}
				}
			}
		}
	}()
	select {
	case lines := <-found:
		return lines, nil
	case <-p.exited:
		return nil, fmt.Errorf("%s exited before it was ready:\n%s", name, p.Output())
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s was not ready within 60 s:\n%s", name, p.Output())
	}
}

// Stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (p *process) Stop() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// Run starts simcloud (with extraArgs for `serve`, e.g. "--rate-limit=100/1") into *server, runs the
// package's tests and stops it; it returns m.Run's exit code (1 without running any test when simcloud
// cannot start).
func Run(m *testing.M, server **Server, extraArgs ...string) int {
	s, err := Start(extraArgs...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "simcloudtest: %v\n", err)
		return 1
	}
	defer s.Stop()
	*server = s
	return m.Run()
}

// Do sends one JSON request to the API with the project token (or the admin token for /_sim paths) and
// decodes the answer into out (when non-nil); a non-2xx answer fails the test.
func (s *Server) Do(t testing.TB, method, path string, body, out any) {
	t.Helper()
	if code, data := s.Request(t, method, path, body); code >= 300 {
		t.Fatalf("%s %s: HTTP %d: %s", method, path, code, data)
	} else if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, path, data, err)
		}
	}
}

// Request sends one JSON request and returns the status and body, whatever the status.
func (s *Server) Request(t testing.TB, method, path string, body any) (int, []byte) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	token := s.Token
	if strings.HasPrefix(path, "/_sim") {
		token = s.AdminToken
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Simcloud-Caller", "go-test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = res.Body.Close() }()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}
