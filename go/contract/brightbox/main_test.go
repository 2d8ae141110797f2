package brightbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/k8ssdk/v2"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests; each test uses names of its own.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

func ctx(t *testing.T) context.Context { return simcloudtest.Context(t) }

// connect is k8ssdk's client for the sandbox's API client, made as Brightbox's CCM makes it (from the
// environment), with gobrightbox refusing fields its structs do not have.
func connect(t *testing.T) *brightbox.Client {
	t.Helper()
	return connectAs(t, ClientID(sim.Token), sim.Token).Get(t)
}

// connectAs is k8ssdk's client for any API client (its error, when the credentials are refused, is k8ssdk's).
func connectAs(t *testing.T, id, secret string) simcloudtest.Result[*brightbox.Client] {
	t.Helper()
	for k, v := range Env(sim, id, secret) {
		t.Setenv(k, v)
	}
	access, err := new(k8ssdk.Cloud).CloudClient()
	if err != nil {
		return simcloudtest.Must[*brightbox.Client](nil, err)
	}
	c, ok := access.(*brightbox.Client)
	if !ok {
		t.Fatalf("k8ssdk's client is a %T, not gobrightbox's", access)
	}
	c.DisallowUnknownFields()
	return simcloudtest.Must(c, nil)
}

// apiError is err as gobrightbox's APIError with status, failing t otherwise.
func apiError(t *testing.T, err error, status int) *brightbox.APIError {
	t.Helper()
	e := simcloudtest.As[*brightbox.APIError](t, err)
	if e.StatusCode != status {
		t.Fatalf("status %d, want %d: %v (%s)", e.StatusCode, status, e, e.ResponseBody)
	}
	return e
}

func ptr[T any](v T) *T { return &v }

// goneOr404 polls get until it answers 404 (missing_resource), calling destroy first while it still answers.
func goneOr404(t *testing.T, what string, get func(context.Context) error, destroy func(context.Context) error) {
	t.Helper()
	poll.Eventually(t, what+" gone", func() error {
		err := get(context.Background())
		var e *brightbox.APIError
		if errors.As(err, &e) && e.StatusCode == http.StatusNotFound {
			return nil
		}
		if err == nil && destroy != nil {
			err = destroy(context.Background())
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// createServer makes a server through Brightbox's API, waits until it is active and destroys it when the test ends.
func createServer(t *testing.T, c *brightbox.Client) *brightbox.Server {
	t.Helper()
	s, err := c.CreateServer(ctx(t), brightbox.ServerOptions{Name: ptr(simcloudtest.UniqueName("bb")), Image: ptr("img-00001"), ServerType: ptr("sc-small")})
	if err != nil {
		t.Fatalf("create server: %v", err)
	}
	t.Cleanup(func() {
		goneOr404(t, "server "+s.ID,
			func(ctx context.Context) error { _, err := c.Server(ctx, s.ID); return err },
			func(ctx context.Context) error { _, err := c.DestroyServer(ctx, s.ID); return err })
	})
	return waitServer(t, c, s.ID, "active")
}

// waitServer polls a server until its status is want.
func waitServer(t *testing.T, c *brightbox.Client, id, want string) *brightbox.Server {
	t.Helper()
	var s *brightbox.Server
	poll.Eventually(t, "server "+id+" "+want, func() error {
		var err error
		if s, err = c.Server(ctx(t), id); err != nil {
			return err
		}
		if s.Status.String() != want {
			return fmt.Errorf("status %s", s.Status)
		}
		return nil
	})
	return s
}

// send is a request the SDK has no call for, through its own authorized HTTP client, to path below its API URL.
func send(t *testing.T, c *brightbox.Client, method, path string, body any) (int, []byte) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.ResourceBaseURL().Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx(t), method, u.String(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

// head is a GET whose answer the test reads itself (status and headers), through the SDK's HTTP client.
func head(t *testing.T, c *brightbox.Client, path string) *http.Response {
	t.Helper()
	u, err := c.ResourceBaseURL().Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx(t), "GET", u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	return res
}
