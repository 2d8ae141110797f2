package providerkit

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestReader(t *testing.T) {
	yes := true
	cases := []struct {
		name         string
		reader       *Reader
		read         func(r *Reader) any
		want         any
		wantProblems []string
	}{
		{"string set", Env(Map(map[string]string{"A": " x "})), func(r *Reader) any { return r.String("A", "d") }, "x", nil},
		{"string blank in the environment is unset", Env(Map(map[string]string{"A": "  "})), func(r *Reader) any { return r.String("A", "d") }, "d", nil},
		{"string blank annotation is set", Annotations(map[string]string{"a": ""}), func(r *Reader) any { return r.String("a", "d") }, "", nil},
		{"required missing", Env(Map(nil)), func(r *Reader) any { return r.Required("TOKEN", "an API token") }, "", []string{"TOKEN is not set: an API token"}},
		{"token with a space", Env(Map(map[string]string{"TOKEN": "a b"})), func(r *Reader) any { return r.Token("TOKEN", "x") }, "a b", []string{"TOKEN contains a space or line break"}},
		{"url fallback", Env(Map(nil)), func(r *Reader) any { return r.URL("U", "https://api.example/", "http://x/") }, "https://api.example/", nil},
		{"url required", Env(Map(nil)), func(r *Reader) any { return r.URL("U", "", "http://x/v4") }, "", []string{"U is not set: a URL like http://x/v4"}},
		{"url relative", Env(Map(map[string]string{"U": "/v4"})), func(r *Reader) any { return r.URL("U", "", "http://x/v4") }, "/v4", []string{`U="/v4" must be an http or https URL like http://x/v4`}},
		{"bool any case and 0/1", Env(Map(map[string]string{"B": "TRUE", "C": "0"})), func(r *Reader) any { return [2]bool{r.Bool("B", false), r.Bool("C", true)} }, [2]bool{true, false}, nil},
		{"bool invalid reads as the fallback", Env(Map(map[string]string{"B": "yes"})), func(r *Reader) any { return r.Bool("B", true) }, true, []string{`B="yes" must be true or false`}},
		{"optional bool unset", Annotations(nil), func(r *Reader) any { return r.OptionalBool("b", nil) }, (*bool)(nil), nil},
		{"optional bool set", Annotations(map[string]string{"b": "true"}), func(r *Reader) any { return *r.OptionalBool("b", nil) }, yes, nil},
		{"int in range", Annotations(map[string]string{"n": "3"}), func(r *Reader) any { return r.Int("n", 1, 0, 5) }, 3, nil},
		{"int out of range", Annotations(map[string]string{"n": "9"}), func(r *Reader) any { return r.Int("n", 1, 0, 5) }, 1, []string{`n="9" must be a whole number from 0 to 5`}},
		{"int without upper bound", Env(Map(map[string]string{"N": "-1"})), func(r *Reader) any { return r.Int("N", 3, 0, math.MaxInt) }, 3, []string{`N="-1" must be a whole number of at least 0`}},
		{"duration", Env(Map(map[string]string{"D": "1m"})), func(r *Reader) any { return r.Duration("D", time.Second, 0) }, time.Minute, nil},
		{"duration not positive", Env(Map(map[string]string{"D": "0s"})), func(r *Reader) any { return r.Duration("D", time.Second, 0) }, time.Second, []string{`D="0s" must be a duration like 15s or 1m`}},
		{"duration below the least", Annotations(map[string]string{"d": "500ms"}), func(r *Reader) any { return r.Duration("d", 3*time.Second, time.Second) }, 3 * time.Second, []string{`d="500ms" must be a duration of at least 1s, like 15s or 1m`}},
		{"one of, any case", Annotations(map[string]string{"p": "HTTP"}), func(r *Reader) any { return OneOf(r, "p", "tcp", "tcp", "http") }, "http", nil},
		{"one of, unknown", Annotations(map[string]string{"p": "udp"}), func(r *Reader) any { return OneOf(r, "p", "tcp", "tcp", "http") }, "tcp", []string{`p="udp" must be one of: tcp, http`}},
		{"the environment over a file", Env(FirstOf(Map(map[string]string{"A": " ", "B": "env"}), Map(map[string]string{"A": "file", "B": "file"}))), func(r *Reader) any { return r.String("A", "") + "," + r.String("B", "") }, "file,env", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.read(tc.reader); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("read %#v, want %#v", got, tc.want)
			}
			if !reflect.DeepEqual(tc.reader.problems, tc.wantProblems) {
				t.Errorf("problems %q, want %q", tc.reader.problems, tc.wantProblems)
			}
		})
	}
}

func TestReaderErrListsEveryProblem(t *testing.T) {
	r := Env(Map(map[string]string{"B": "maybe"}))
	if err := r.Err("invalid configuration"); err != nil {
		t.Fatalf("no problem yet, err = %v", err)
	}
	r.Required("TOKEN", "an API token")
	r.Bool("B", false)
	r.Problemf("X and Y are both set: set only one")
	want := `invalid configuration: TOKEN is not set: an API token; B="maybe" must be true or false; X and Y are both set: set only one`
	if err := r.Err("invalid configuration"); err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestAPIEnvLoad(t *testing.T) {
	names := APIEnv{Token: "T", URL: "U", Region: "R", DefaultURL: "https://api.example/v4", ExampleURL: "http://127.0.0.1:8080/v4"}
	cases := []struct {
		name    string
		env     map[string]string
		want    APIConfig
		wantErr string
	}{
		{"all set", map[string]string{"T": "t", "U": "http://127.0.0.1:1/v4", "R": "sim-1"}, APIConfig{"t", "http://127.0.0.1:1/v4", "sim-1"}, ""},
		{"the default URL", map[string]string{"T": "t", "R": "sim-1"}, APIConfig{"t", "https://api.example/v4", "sim-1"}, ""},
		{"nothing set", nil, APIConfig{URL: "https://api.example/v4"}, "invalid configuration: T is not set: an API token; R is not set: the region of load balancers, e.g. sim-1"},
		{"a relative URL", map[string]string{"T": "t", "U": "/v4", "R": "r"}, APIConfig{"t", "/v4", "r"}, `invalid configuration: U="/v4" must be an http or https URL like http://127.0.0.1:8080/v4`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := names.Load(Map(tc.env))
			if cfg != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Errorf("Load = %+v, %v; want %+v, %q", cfg, err, tc.want, tc.wantErr)
			}
		})
	}
}
