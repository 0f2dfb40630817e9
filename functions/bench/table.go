package main

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// printScaleTable prints every run's steps side by side.
func printScaleTable(w io.Writer, runs []*scaleRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "step\t"
	for _, r := range runs {
		header += r.name + ": count\ttime\tper s\tx hello\tp50\tp99\tpeak RSS MB\t"
	}
	fmt.Fprintln(tw, header)
	var steps []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, m := range r.rows {
			if !seen[m.step] {
				seen[m.step] = true
				steps = append(steps, m.step)
			}
		}
	}
	for _, step := range steps {
		line := step + "\t"
		for _, r := range runs {
			var m *measure
			for i := range r.rows {
				if r.rows[i].step == step {
					m = &r.rows[i]
				}
			}
			if m == nil {
				line += "\t\t\t\t\t\t\t"
				continue
			}
			ratio := "-"
			if h := cmp.Or(m.hello, r.hello()); m.p50 > 0 && h > 0 && m.unit == "requests" {
				ratio = fmt.Sprintf("%.2f", m.rate/h)
			}
			line += fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t", count(m), dur(m.time), rate(m.rate), ratio, dur(m.p50), dur(m.p99), mb(m.rss))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

func count(m *measure) string {
	if m.rows == 0 && m.unit == "" {
		return cmp.Or(m.note, "-")
	}
	s := fmt.Sprintf("%d %s", m.rows, m.unit)
	if m.note != "" {
		s += " (" + m.note + ")"
	}
	if m.errors > 0 {
		s += fmt.Sprintf(" %d errors", m.errors)
	}
	return s
}

func megabytes(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func rate(r float64) string {
	if r == 0 {
		return "-"
	}
	return strconv.FormatFloat(r, 'f', 0, 64)
}

func mb(b int64) string {
	if b == 0 {
		return "-"
	}
	return strconv.FormatInt(b>>20, 10)
}
