package watch

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a delivery's signature: "t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<body>" with the watch's secret>". The
// timestamp is signed with the body, so a receiver that checks it against
// its clock (Verify's tolerance) rejects an old delivery replayed.
const SignatureHeader = "Meridian-Signature"

// Sign returns the SignatureHeader value of body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("watch: signature does not match")
	ErrStale        = errors.New("watch: timestamp outside the tolerance")
)

// Verify checks a delivery as its receiver should: header is the
// SignatureHeader received, body the raw body, now the receiver's clock.
// It fails on a malformed header, a signature that no v1 entry matches
// (compared in constant time) or a timestamp more than tolerance from now.
//
//	err := watch.Verify(secret, r.Header.Get(watch.SignatureHeader), body, time.Now(), 5*time.Minute)
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: malformed header %q", ErrBadSignature, header)
	}
	want := mac(secret, ts, body)
	ok := false
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			ok = true
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed %s from now", ErrStale, d.Round(time.Second))
	}
	return nil
}
