package providerkit

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Lookup reads one setting: os.LookupEnv in the binary, Map in tests.
type Lookup func(key string) (value string, ok bool)

// Map is a Lookup over fixed values.
func Map(values map[string]string) Lookup {
	return func(key string) (string, bool) {
		v, ok := values[key]
		return v, ok
	}
}

// FirstOf is a Lookup that answers from the first of lookups that has key set to more than blanks, e.g. the
// environment over a configuration file.
func FirstOf(lookups ...Lookup) Lookup {
	return func(key string) (string, bool) {
		for _, lookup := range lookups {
			if v, ok := lookup(key); ok && strings.TrimSpace(v) != "" {
				return v, true
			}
		}
		return "", false
	}
}

// Reader reads typed settings and collects every problem, each naming its key and value, so that one
// error lists everything to fix instead of the first thing. A value that does not parse is a problem and
// reads as the fallback.
type Reader struct {
	lookup   Lookup
	problems []string
}

// Env reads environment variables; one set to blanks counts as unset, as shells make it easy to export an
// empty variable by accident.
func Env(lookup Lookup) *Reader {
	return &Reader{lookup: func(key string) (string, bool) {
		v, _ := lookup(key)
		v = strings.TrimSpace(v)
		return v, v != ""
	}}
}

// Annotations reads a Service's annotations; one that is present counts even when blank, so an annotation
// can set a value to "" over a configured default.
func Annotations(values map[string]string) *Reader {
	return &Reader{lookup: func(key string) (string, bool) {
		v, ok := values[key]
		return strings.TrimSpace(v), ok
	}}
}

// Lookup returns the trimmed value of key and whether it is set.
func (r *Reader) Lookup(key string) (string, bool) { return r.lookup(key) }

// Invalid records that key's value raw is wrong, e.g. Invalid(k, v, "must be ipv4 or ipv6").
func (r *Reader) Invalid(key, raw, reason string) {
	r.problems = append(r.problems, fmt.Sprintf("%s=%q %s", key, raw, reason))
}

// Problemf records a problem that is not about one value, e.g. two settings that exclude each other.
func (r *Reader) Problemf(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// Err is nil, or one error listing every problem after what, e.g. "invalid configuration".
func (r *Reader) Err(what string) error {
	if len(r.problems) == 0 {
		return nil
	}
	return &SettingsError{What: what, Problems: r.problems}
}

// SettingsError lists every problem found in a set of settings.
type SettingsError struct {
	What     string
	Problems []string
}

func (e *SettingsError) Error() string { return e.What + ": " + strings.Join(e.Problems, "; ") }

// Parse reads key with parse; unset, it is fallback. A parse error is recorded as the reason the value is
// wrong (so it reads "must be ..."), and fallback returned.
func Parse[T any](r *Reader, key string, fallback T, parse func(string) (T, error)) T {
	raw, ok := r.lookup(key)
	if !ok {
		return fallback
	}
	v, err := parse(raw)
	if err != nil {
		r.Invalid(key, raw, err.Error())
		return fallback
	}
	return v
}

// OneOf reads key as one of allowed, in any case; unset, it is fallback.
func OneOf[T ~string](r *Reader, key string, fallback T, allowed ...T) T {
	return Parse(r, key, fallback, func(raw string) (T, error) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			if strings.EqualFold(raw, string(a)) {
				return a, nil
			}
			names[i] = string(a)
		}
		return fallback, fmt.Errorf("must be one of: %s", strings.Join(names, ", "))
	})
}

// String reads key; unset, it is fallback.
func (r *Reader) String(key, fallback string) string {
	if v, ok := r.lookup(key); ok {
		return v
	}
	return fallback
}

// Required reads key; unset, it is a problem saying what the value is, e.g. "an API token".
func (r *Reader) Required(key, what string) string {
	v, ok := r.lookup(key)
	if !ok || v == "" {
		r.Problemf("%s is not set: %s", key, what)
	}
	return v
}

// Token is Required for a credential, which also may not contain a space or line break (it goes into an
// HTTP header).
func (r *Reader) Token(key, what string) string {
	v := r.Required(key, what)
	if strings.ContainsAny(v, " \t\r\n") {
		r.Problemf("%s contains a space or line break", key)
	}
	return v
}

// URL reads key as an http or https URL with a host; unset, it is fallback, and with no fallback it is
// required. example shows a valid value in the problem.
func (r *Reader) URL(key, fallback, example string) string {
	raw := r.String(key, fallback)
	if raw == "" {
		r.Problemf("%s is not set: a URL like %s", key, example)
		return ""
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Invalid(key, raw, "must be an http or https URL like "+example)
	}
	return raw
}

// OptionalBool reads key as true/false or 1/0, in any case; unset, it is fallback (nil: "not said").
func (r *Reader) OptionalBool(key string, fallback *bool) *bool {
	return Parse(r, key, fallback, func(raw string) (*bool, error) {
		b, err := strconv.ParseBool(strings.ToLower(raw))
		if err != nil {
			return nil, errors.New("must be true or false")
		}
		return &b, nil
	})
}

// Bool is OptionalBool with a plain fallback.
func (r *Reader) Bool(key string, fallback bool) bool {
	if b := r.OptionalBool(key, nil); b != nil {
		return *b
	}
	return fallback
}

// Int reads key as a whole number from lo to hi (math.MaxInt: no upper bound); unset, it is fallback.
func (r *Reader) Int(key string, fallback, lo, hi int) int {
	return Parse(r, key, fallback, func(raw string) (int, error) {
		n, err := strconv.Atoi(raw)
		switch {
		case (err != nil || n < lo) && hi == math.MaxInt:
			return 0, fmt.Errorf("must be a whole number of at least %d", lo)
		case err != nil || n < lo || n > hi:
			return 0, fmt.Errorf("must be a whole number from %d to %d", lo, hi)
		}
		return n, nil
	})
}

// Duration reads key as a Go duration ("15s", "1m") of at least least and more than zero; unset, it is
// fallback.
func (r *Reader) Duration(key string, fallback, least time.Duration) time.Duration {
	return Parse(r, key, fallback, func(raw string) (time.Duration, error) {
		d, err := time.ParseDuration(raw)
		switch {
		case (err != nil || d <= 0) && least <= 0:
			return 0, errors.New("must be a duration like 15s or 1m")
		case err != nil || d <= 0 || d < least:
			return 0, fmt.Errorf("must be a duration of at least %s, like 15s or 1m", least)
		}
		return d, nil
	})
}

// APIConfig is the configuration of a provider that needs only an API token, the API's URL and a region
// (where its load balancers go), as Linode's and DigitalOcean's CCMs do.
type APIConfig struct {
	Token  string
	URL    string
	Region string
}

// APIEnv names the environment variables of an APIConfig.
type APIEnv struct {
	Token, URL, Region string
	// DefaultURL is the cloud's public API, for an unset URL variable; ExampleURL shows a valid URL in the
	// problem of an invalid one.
	DefaultURL, ExampleURL string
}

// Load reads an APIConfig through lookup; every missing or invalid variable is named, all at once.
func (n APIEnv) Load(lookup Lookup) (APIConfig, error) {
	env := Env(lookup)
	cfg := APIConfig{
		Token:  env.Required(n.Token, "an API token"),
		URL:    env.URL(n.URL, n.DefaultURL, n.ExampleURL),
		Region: env.Required(n.Region, "the region of load balancers, e.g. sim-1"),
	}
	return cfg, env.Err("invalid configuration")
}
