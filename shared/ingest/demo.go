package ingest

// DemoLabel marks invented data as invented where a report names its
// sources: a reader told that its files are the project's demo data puts
// it before every source name ("Meridian demo data (invented): AER
// pipelines"). It lives here, not in package demo, because the readers
// apply it and production ingest does not depend on the generators
// (package demo).
const DemoLabel = "Meridian demo data (invented)"
