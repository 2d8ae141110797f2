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
	cmd        *exec.Cmd
	exited     chan struct{}
	mu         sync.Mutex
	output     bytes.Buffer
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
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	node := filepath.Join(root, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		return nil, fmt.Errorf("%s is missing: run `node scripts/bootstrap.mjs` in %s first", node, root)
	}
	s := &Server{Token: secret("go-test-token"), AdminToken: secret("go-test-admin"), exited: make(chan struct{})}
	args := append([]string{
		filepath.Join(root, "simulator", "cli", "main.ts"), "serve", "--host=127.0.0.1", "--port=0",
		"--token=" + s.Token, "--admin-token=" + s.AdminToken, "--no-dataplane", "--quiet", "--delay-ms=20",
	}, extraArgs...)
	s.cmd = exec.Command(node, args...)
	s.cmd.Dir = root
	// Every answer is checked against its route's response schema: one that does not match is a 500 naming the
	// field (simulator/server/response-check.ts), so the SDK call that read it fails the test.
	s.cmd.Env = append(os.Environ(), "NO_COLOR=1", "SIMCLOUD_VALIDATE_RESPONSES=1")
	s.cmd.SysProcAttr = dieWithParent()
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = &lockedWriter{s: s}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting simcloud: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	url, err := s.waitForURL(stdout)
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.URL = url
	return s, nil
}

type lockedWriter struct{ s *Server }

// Write appends to the output buffer under its lock (stderr is copied from another goroutine).
func (w *lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.output.Write(p)
}

// Output is what the process wrote to stderr so far.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.output.String()
}

func (s *Server) waitForURL(stdout io.Reader) (string, error) {
	found := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if m := listening.FindStringSubmatch(scanner.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url, nil
	case <-s.exited:
		return "", fmt.Errorf("simcloud exited before listening:\n%s", s.Output())
	case <-time.After(60 * time.Second):
		return "", fmt.Errorf("simcloud did not listen within 60 s:\n%s", s.Output())
	}
}

// Stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
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
