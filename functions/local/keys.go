package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"meridian/shared/datadir"
	"meridian/shared/gateway"
)

// keysCommand runs `meridian keys [-data DIR] add|list|revoke|plans ...`.
func keysCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := dataFlag(fs, "directory of keys.json")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	return runKeys(fs.Args(), *data, stdout, stderr)
}

// The key management commands, `meridian keys add|list|revoke|plans`, over
// package gateway's files (keys.json, usage.json, plans.json).

const keysUsage = `Usage:
  meridian keys add -name NAME -products PRODUCTS [-plan PLAN]
  meridian keys list
  meridian keys revoke ID|NAME
  meridian keys plans

add     creates a key and prints it once. PRODUCTS is a comma-separated list
        of search, autocomplete, batch, maps, ag, energy, or "all"; a product
        may name its own plan (maps:unlimited). -plan (default "default") is
        the plan of the products that name none.
list    shows every key: id, name, products:plan, created and revoked times
        (UTC), and this month's requests per product (at most a second behind
        a running server).
revoke  revokes the key with that id, or the active key with that name, for
        good. A running server refuses it within a second.
plans   shows the plans: the defaults, with <data dir>/plans.json applied.

Files: <data dir>/keys.json holds key hashes (never keys); a running server
writes <data dir>/usage.json.
`

// runKeys runs `meridian keys …` (args are what follows "keys" and its
// -data flag) on the files of data. It returns the exit code: 0 on
// success, 1 when the command failed, 2 for a usage error.
func runKeys(args []string, data datadir.Dir, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "meridian keys: missing command\n\n"+keysUsage)
		return 2
	}
	c := keysCmd{data: data, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "add":
		return c.add(args[1:])
	case "list":
		return c.list(args[1:])
	case "revoke":
		return c.revoke(args[1:])
	case "plans":
		return c.listPlans(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, keysUsage)
		return 0
	}
	fmt.Fprintf(stderr, "meridian keys: unknown command %q\n\n%s", args[0], keysUsage)
	return 2
}

type keysCmd struct {
	data           datadir.Dir
	stdout, stderr io.Writer
}

func (c keysCmd) keysPath() string { return c.data.Keys() }

// fail reports err for command cmd and returns exit code 1.
func (c keysCmd) fail(cmd string, err error) int {
	fmt.Fprintf(c.stderr, "meridian keys %s: %s\n", cmd, strings.TrimPrefix(err.Error(), "gateway: "))
	return 1
}

// usageError reports a usage error for command cmd and returns exit code 2.
func (c keysCmd) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "meridian keys %s: %s\nRun 'meridian keys help' for usage.\n", cmd, strings.TrimPrefix(fmt.Sprintf(format, args...), "gateway: "))
	return 2
}

// flags parses a subcommand's flags; ok false means return code.
func (c keysCmd) flags(fs *flag.FlagSet, synopsis string, args []string) (code int, ok bool) {
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s\n", synopsis)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

func (c keysCmd) add(args []string) int {
	fs := flag.NewFlagSet("meridian keys add", flag.ContinueOnError)
	name := fs.String("name", "", "label of the key, unique among active keys (required)")
	products := fs.String("products", "", `comma-separated products, each optionally "product:plan", or "all" (required)`)
	plan := fs.String("plan", gateway.DefaultPlan, "plan of the products that name none")
	if code, ok := c.flags(fs, "meridian keys add -name NAME -products search,batch[:PLAN] [-plan PLAN]", args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError("add", "unexpected argument %q", fs.Arg(0))
	}
	if *name == "" {
		return c.usageError("add", "-name is required")
	}
	if err := gateway.ValidateKeyName(*name); err != nil {
		return c.usageError("add", "%v", err)
	}
	if gateway.ReservedKeyName(*name) {
		return c.usageError("add", "the name %q is reserved for the key the server manages", *name)
	}
	if *products == "" {
		return c.usageError("add", "-products is required (one or more of %s, or all)", gateway.ProductList())
	}
	plans, err := gateway.LoadPlans(c.data.Plans())
	if err != nil {
		return c.fail("add", err)
	}
	want, err := parseProductPlans(*products, *plan, plans)
	if err != nil {
		return c.usageError("add", "%v", err)
	}
	plain, k, err := gateway.AddKey(c.keysPath(), *name, want)
	if err != nil {
		return c.fail("add", err)
	}
	fmt.Fprintf(c.stdout, "id:       %s\nname:     %s\nproducts: %s\nkey:      %s\n", k.ID, k.Name, formatProducts(k.Products, ", "), plain)
	fmt.Fprintln(c.stdout, "Store the key now: only its hash is kept, so it cannot be shown again.")
	return 0
}

// parseProductPlans parses "search,maps:unlimited" (or "all") into product
// → plan, with plan for products that name none, checked against plans.
func parseProductPlans(list, plan string, plans gateway.Plans) (map[gateway.Product]string, error) {
	out := make(map[gateway.Product]string)
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, pl, ok := strings.Cut(item, ":")
		if !ok {
			pl = plan
		}
		ps := []gateway.Product{}
		if name == "all" {
			ps = gateway.Products()
		} else {
			p, err := gateway.ParseProduct(name)
			if err != nil {
				return nil, err
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			if _, ok := plans.Lookup(p, pl); !ok {
				return nil, fmt.Errorf("unknown plan %q for %s (plans: %s)", pl, p, strings.Join(plans.Names(p), ", "))
			}
			out[p] = pl
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-products names no product (want one or more of %s, or all)", gateway.ProductList())
	}
	return out, nil
}

// formatProducts writes "search:default, maps:unlimited" in product order.
func formatProducts(ps map[gateway.Product]string, sep string) string {
	var parts []string
	for _, p := range gateway.Products() {
		if plan, ok := ps[p]; ok {
			parts = append(parts, p.String()+":"+plan)
		}
	}
	return strings.Join(parts, sep)
}

func (c keysCmd) list(args []string) int {
	fs := flag.NewFlagSet("meridian keys list", flag.ContinueOnError)
	if code, ok := c.flags(fs, "meridian keys list", args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError("list", "unexpected argument %q", fs.Arg(0))
	}
	keys, err := gateway.ListKeys(c.keysPath())
	if err != nil {
		return c.fail("list", err)
	}
	if len(keys) == 0 {
		fmt.Fprintf(c.stdout, "No keys in %s. Create one with: meridian keys add -name NAME -products search\n", c.keysPath())
		return 0
	}
	usage, err := gateway.ReadUsage(c.data.Usage())
	if err != nil {
		fmt.Fprintf(c.stderr, "meridian keys list: usage not shown: %s\n", strings.TrimPrefix(err.Error(), "gateway: "))
	}
	now := time.Now()
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tNAME\tPRODUCTS\tCREATED\tREVOKED\tUSAGE %s\n", now.UTC().Format("2006-01"))
	for _, k := range keys {
		revoked := "-"
		if k.Revoked() {
			revoked = formatTime(k.RevokedAt)
		}
		used := "?"
		if usage != nil {
			used = formatUsage(k.Products, usage.Month(k.ID, now))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, formatProducts(k.Products, ","), formatTime(k.CreatedAt), revoked, used)
	}
	if err := tw.Flush(); err != nil {
		return c.fail("list", err)
	}
	return 0
}

func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04Z") }

// formatUsage writes "search=3 batch=0" for the key's products.
func formatUsage(ps map[gateway.Product]string, counts map[gateway.Product]int64) string {
	var parts []string
	for _, p := range gateway.Products() {
		if _, ok := ps[p]; ok {
			parts = append(parts, p.String()+"="+strconv.FormatInt(counts[p], 10))
		}
	}
	return strings.Join(parts, " ")
}

func (c keysCmd) revoke(args []string) int {
	fs := flag.NewFlagSet("meridian keys revoke", flag.ContinueOnError)
	if code, ok := c.flags(fs, "meridian keys revoke ID|NAME", args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError("revoke", "want exactly one key id or name, got %d arguments", fs.NArg())
	}
	target := fs.Arg(0)
	if err := gateway.RevokeKey(c.keysPath(), target); err != nil {
		return c.fail("revoke", err)
	}
	fmt.Fprintf(c.stdout, "Revoked key %s. A running server refuses it within a second.\n", target)
	return 0
}

func (c keysCmd) listPlans(args []string) int {
	fs := flag.NewFlagSet("meridian keys plans", flag.ContinueOnError)
	if code, ok := c.flags(fs, "meridian keys plans", args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError("plans", "unexpected argument %q", fs.Arg(0))
	}
	plans, err := gateway.LoadPlans(c.data.Plans())
	if err != nil {
		return c.fail("plans", err)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRODUCT\tPLAN\tRATE/S\tBURST\tQUOTA/MONTH")
	for _, p := range gateway.Products() {
		for _, pl := range plans[p] {
			rate, burst, quota := "unlimited", "-", "unlimited"
			if pl.RatePerSecond > 0 {
				rate = strconv.FormatFloat(pl.RatePerSecond, 'f', -1, 64)
				burst = strconv.Itoa(pl.Burst)
			}
			if pl.MonthlyQuota > 0 {
				quota = strconv.FormatInt(pl.MonthlyQuota, 10)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p, pl.Name, rate, burst, quota)
		}
	}
	if err := tw.Flush(); err != nil {
		return c.fail("plans", err)
	}
	return 0
}
