package coldstart

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
)

// Env reads configuration from environment variables through get
// (os.Getenv in main, a map in tests), collecting every missing or invalid
// variable so a function reports them all at once at cold start.
type Env struct {
	get  func(string) string
	errs []error
}

// NewEnv returns an Env over get.
func NewEnv(get func(string) string) *Env { return &Env{get: get} }

// String returns the variable, or def when it is unset or blank.
func (r *Env) String(name, def string) string {
	if v := strings.TrimSpace(r.get(name)); v != "" {
		return v
	}
	return def
}

// Required returns the variable and records an error when it is unset.
func (r *Env) Required(name, what string) string {
	v := strings.TrimSpace(r.get(name))
	if v == "" {
		r.errs = append(r.errs, fmt.Errorf("%s is required: %s", name, what))
	}
	return v
}

// URL returns the variable, an absolute http or https URL without a
// trailing slash, or def when unset; anything else is recorded as an error.
func (r *Env) URL(name, def string) string {
	s := strings.TrimSpace(r.get(name))
	if s == "" {
		return def
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want an absolute URL such as https://tiles.example.com/tiles", name, s))
		return def
	}
	return strings.TrimSuffix(s, "/")
}

// Int returns the variable as an integer in [lo, hi], or def when unset.
func (r *Env) Int(name string, def, lo, hi int) int {
	s := strings.TrimSpace(r.get(name))
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want an integer from %d to %d", name, s, lo, hi))
		return def
	}
	return n
}

// LogLevel reads debug, info, warn or error (default info).
func (r *Env) LogLevel(name string) slog.Level {
	s := strings.TrimSpace(r.get(name))
	if s == "" {
		return slog.LevelInfo
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want debug, info, warn or error", name, s))
		return slog.LevelInfo
	}
	return l
}

// Err returns every problem found, or nil.
func (r *Env) Err() error {
	if len(r.errs) == 0 {
		return nil
	}
	return fmt.Errorf("configuration: %w", errors.Join(r.errs...))
}
