// Package demo is the home of the generators of invented data: the grid
// fixtures (griddemo), the energy demo (energydemo) and the agriculture
// demo (agdemo), each written in the publishers' real layouts and read
// back by the same ingest code as the real files, plus their
// province-size generators. This package holds
// what they share: the date the demo describes (AsOf), which the energy
// and the agriculture demo both use, and their random source (Rand). The words that mark invented data as
// invented in report sources are ingest.DemoLabel: the readers apply
// them, and production ingest must not import this package.
//
// The generators live here, not next to the readers, so that production
// ingest (energyingest, agingest, gridingest) never links them: the
// readers import nothing from demo, and demo imports the readers for
// their column lists and rules. The generators are split into subpackages by what they
// import, so that a user of the grid fixtures does not link the energy
// or agriculture readers, and the reverse.
//
// Invented data says it is invented: every report source built from it is
// prefixed with ingest.DemoLabel, every operator is an invented company
// marked "(demo)" under a BA code the regulator does not use, invented
// places carry invented names, and positions claim no better accuracy
// than they are worth.
package demo

import "time"

// AsOf returns the day the demo data describes, 2026-11-21, for every
// domain: the energy demo's current ST37 snapshot is this month's, the
// previous one last month's, and dispositions expire relative to it; the
// agriculture demo's files whose names carry no date are as of this day.
// Readers ingesting the demo files are told this date (energyingest
// Options.Now, agingest Options.AsOf) so that nothing depends on the
// clock.
func AsOf() time.Time { return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC) }
