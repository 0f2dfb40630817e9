package watch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrPrivate is a webhook address that is not public: loopback, private,
// link-local, unique-local, shared (CGNAT), unspecified or multicast.
var ErrPrivate = errors.New("watch: the webhook address is not public")

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// public reports whether a webhook may be sent to ip.
func public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !ip.IsLinkLocalMulticast() &&
		!ip.IsUnspecified() && !ip.IsMulticast() && !ip.IsInterfaceLocalMulticast() && !cgnat.Contains(ip)
}

// CheckURL refuses a webhook URL a watch may not have: not https (http
// too with allowPrivate, for a receiver on this machine), with user
// information, or whose host resolves to an address that is not public,
// unless allowPrivate (the local server's -allow-private-webhooks; never
// on AWS). Delivery checks the address dialled again (Dialer), so a name
// that resolves elsewhere later gets nothing.
func CheckURL(ctx context.Context, raw string, allowPrivate bool, resolver *net.Resolver) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("url %q is not an absolute URL", raw)
	}
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return nil, fmt.Errorf("url %q: webhooks are sent over https only", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("url %q: credentials in the URL are not accepted (the signature authenticates the sender)", raw)
	}
	if allowPrivate {
		return u, nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		if resolver == nil {
			resolver = net.DefaultResolver
		}
		ips, err := resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("url %q: host %s does not resolve: %v", raw, host, err)
		}
		addrs = ips
	}
	for _, ip := range addrs {
		if !public(ip) {
			return nil, fmt.Errorf("url %q: %s is %s: %w", raw, host, ip, ErrPrivate)
		}
	}
	return u, nil
}

// Dialer returns a dialer that refuses to connect to an address that is
// not public, unless allowPrivate: the check of the address actually
// dialled, after any DNS answer.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{}
	if !allowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return fmt.Errorf("%s: %w", address, ErrPrivate)
			}
			return nil
		}
	}
	return d
}
