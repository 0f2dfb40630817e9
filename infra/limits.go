package main

import (
	"math"

	"meridian/shared/gateway"
)

// deployedPlan is a plan as its usage plan has it on AWS: always throttled.
type deployedPlan struct {
	gateway.Plan
	Throttle Throttle
}

// unlimited reports whether a plan has no monthly quota: a key on it costs
// without bound (Lambda time, API Gateway requests), so a production stage
// does not offer it.
func unlimited(pl gateway.Plan) bool { return pl.MonthlyQuota == 0 }

// deployedPlans returns the usage plans of product p: every plan of plans,
// less those without a quota unless allowUnlimited, each with its own rate
// and burst or, for a plan without a rate (maps default, unlimited), the
// product's per-key ceiling p.Limits.Key. The omitted plans' names are
// returned for a synth warning.
func deployedPlans(p Product, plans []gateway.Plan, allowUnlimited bool) (out []deployedPlan, omitted []string) {
	for _, pl := range plans {
		if unlimited(pl) && !allowUnlimited {
			omitted = append(omitted, pl.Name)
			continue
		}
		t := Throttle{Rate: pl.RatePerSecond, Burst: pl.Burst}
		if pl.RatePerSecond <= 0 {
			t = p.Limits.Key
		}
		out = append(out, deployedPlan{Plan: pl, Throttle: t})
	}
	return out, omitted
}

// retryAfter is the Retry-After, in whole seconds, of product p's 429
// rate_limited answer. API Gateway's gateway responses are static: one value
// per API, not per key. It is the wait for one token of the slowest
// deployed plan (the stage's own throttle included), ceil(1/rate), at least
// 1 s: a caller on that plan who waits so long is let through, and a caller
// on a faster plan waits longer than it needs, never less.
func retryAfter(p Product, plans []deployedPlan) int {
	slowest := p.Limits.Stage.Rate
	for _, pl := range plans {
		if pl.Throttle.Rate > 0 && (slowest <= 0 || pl.Throttle.Rate < slowest) {
			slowest = pl.Throttle.Rate
		}
	}
	if slowest <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(1/slowest)))
}
