package ingest

import (
	"fmt"
	"slices"
	"strings"
)

// Candidate is a layout a reader reads, with the columns a file must have
// to be taken for it. A reader that reads more than one layout lists its
// candidates, most specific first, and Table.Choose takes the first whose
// required columns the file has: a layout is chosen by what the file
// holds, never as a fallback for a file that lacks its columns.
type Candidate struct {
	Layout Layout
	// Required are the columns the layout cannot be read without, each as
	// the list of its published names (normalised as the Source's Names
	// does, Key by default): the column is present when the file has any
	// one of them.
	Required [][]string
}

// Mismatch is why a file was taken for none of a reader's layouts: the
// columns it has and, for the closest layout (the one it lacks the fewest
// columns of, then the one it has the most of, then the later in the
// reader's list, the more general), the columns it lacks. It rides on the *Error a reader
// returns (Error.Mismatch), so that a tool can print it without parsing
// the reason.
type Mismatch struct {
	Have    []string // the file's columns (normalised), in the file's order
	Closest Layout   // the layout the file came closest to; the zero Layout from Table.Need, whose reader has one
	Missing []string // the closest layout's columns the file lacks; "A or B" for a column with two names
}

// missing returns the required columns of c that have lacks.
func (c Candidate) missing(has func(string) bool) []string {
	var out []string
	for _, names := range c.Required {
		if !slices.ContainsFunc(names, has) {
			out = append(out, strings.Join(names, " or "))
		}
	}
	return out
}

// ChooseLayout returns the index in cands of the first candidate whose
// required columns have holds all of, or an *Error at file and line (the
// header's line; a GeoJSON feature's) naming the columns the file has and
// the closest candidate's missing ones.
func ChooseLayout(file string, line int, have []string, cands []Candidate) (int, error) {
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[h] = true
	}
	has := func(n string) bool { return set[n] }
	best, bestMissing := -1, []string(nil)
	for i, c := range cands {
		m := c.missing(has)
		if len(m) == 0 {
			return i, nil
		}
		// Closest: fewest columns missing, then most present, then the
		// later (the more general: candidates come most specific first).
		if best < 0 || len(m) < len(bestMissing) ||
			len(m) == len(bestMissing) && len(c.Required)-len(m) >= len(cands[best].Required)-len(bestMissing) {
			best, bestMissing = i, m
		}
	}
	if best < 0 {
		return -1, Errorf(file, line, "no layout to read the file as")
	}
	cols := slices.DeleteFunc(slices.Clone(have), func(s string) bool { return s == "" })
	c := cands[best].Layout
	e := Errorf(file, line, "columns match no known layout: the file has %s; the closest, %s (%s), also needs %s",
		listOrNone(cols), c.Dataset, c.Form, strings.Join(bestMissing, ", "))
	e.Mismatch = &Mismatch{Have: cols, Closest: c, Missing: bestMissing}
	return -1, e
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "no columns"
	}
	return strings.Join(s, ", ")
}

// Choose picks the layout of t among cands by its columns (ChooseLayout)
// and reports it (Recognise). A table with a header is matched on the
// header; a GeoJSON table, whose features each have their own properties,
// on the properties of r, its first feature. The result is the index of
// the chosen candidate.
func (t *Table) Choose(r *Row, cands []Candidate) (int, error) {
	have, line := t.Cols, t.HeaderAt
	if !t.Fixed {
		have, line = r.Columns(), r.Line
	}
	i, err := ChooseLayout(t.Name, line, have, cands)
	if err != nil {
		return -1, err
	}
	t.Recognise(cands[i].Layout)
	return i, nil
}

// Columns returns the row's column names (normalised), in the file's
// order.
func (r *Row) Columns() []string {
	out := make([]string, len(r.vals))
	for k, i := range r.idx {
		if i < len(out) {
			out[i] = k
		}
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// String names the candidate's layout, for messages.
func (c Candidate) String() string { return fmt.Sprintf("%s (%s)", c.Layout.Dataset, c.Layout.Form) }
