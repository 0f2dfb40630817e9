package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// cdk-nag's AwsSolutions pack checks every resource of the app on every
// synth: `make synth` (main) and the infra tests (synth in stack_test.go)
// alike. Each finding is either fixed in the stack or suppressed beside the
// resource it is about, with suppress: the rule, the findings it covers
// (appliesTo) where the rule has them, and the reason. infra/README.md
// lists every suppression.

// minReasonWords is how many words a suppression's reason must have at
// least: a reviewer must be able to accept it without asking.
const minReasonWords = 10

// applyNag adds the AwsSolutions checks to app as an Aspect.
func applyNag(app awscdk.App) {
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{
		// The CSV compliance report in cdk.out lists every rule checked
		// and its result per resource.
		Reports: jsii.Bool(true),
	}), nil)
}

// suppress records that rule (e.g. "AwsSolutions-COG4") does not apply to
// c, for reason; children: to every construct under c as well (a role's
// DefaultPolicy, an API's methods). appliesTo, when given, narrows it to
// those findings: exact strings, or regexp (a /regexp/ of cdk-nag's).
// It panics on a reason of fewer than minReasonWords words: a programming
// error, caught by every synth.
func suppress(c constructs.IConstruct, children bool, rule, reason string, appliesTo ...any) {
	if !strings.HasPrefix(rule, "AwsSolutions-") || strings.Contains(rule, "[") {
		panic(fmt.Sprintf("infra: suppression of %q: want AwsSolutions-<RULE> (findings go in appliesTo)", rule))
	}
	if n := len(strings.Fields(reason)); n < minReasonWords {
		panic(fmt.Sprintf("infra: suppression of %s on %s: the reason has %d words, want at least %d", rule, *c.Node().Path(), n, minReasonWords))
	}
	s := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		s.AppliesTo = &appliesTo
	}
	cdknag.NagSuppressions_AddResourceSuppressions(c, &[]*cdknag.NagPackSuppression{s}, jsii.Bool(children))
}

// regexp is an appliesTo entry matching findings by a regular expression
// (JavaScript syntax, anchored by the caller).
func nagRegexp(re string) any {
	return &cdknag.RegexAppliesTo{Regex: jsii.String("/" + re + "/")}
}

// objectsUnder matches the IAM5 finding of a grant on every object under
// prefix (grid/, tiles/, refresh/) of the data bucket:
// Resource::<DataBucket….Arn>/grid/*.
func objectsUnder(prefix string) any {
	return nagRegexp(`^Resource::<DataBucket[0-9A-F]{8}\.Arn>/` + regexp.QuoteMeta(prefix) + `\*$`)
}

// nagFinding matches the message of an AwsSolutions finding.
var nagFinding = regexp.MustCompile(`^AwsSolutions-[A-Za-z0-9]+`)

// nagFindings lists the unsuppressed AwsSolutions errors and warnings in a
// synthesized assembly, one line each (level, construct path, message's
// first line), sorted.
func nagFindings(asm cxapi.CloudAssembly) []string {
	var out []string
	for _, st := range *asm.Stacks() {
		for _, m := range *st.Messages() {
			if m.Level != cxapi.SynthesisMessageLevel_ERROR && m.Level != cxapi.SynthesisMessageLevel_WARNING {
				continue
			}
			text := fmt.Sprint(m.Entry.Data)
			if !nagFinding.MatchString(text) {
				continue
			}
			text, _, _ = strings.Cut(text, "\n")
			out = append(out, fmt.Sprintf("%s %s: %s", m.Level, *m.Id, text))
		}
	}
	sort.Strings(out)
	return out
}
