// Package energyingest reads the public energy datasets behind the energy report
// in their published formats, and writes demo files in the same formats.
//
// Every reader streams: it takes an io.Reader (io.ReaderAt for XLSX),
// calls a callback once per record and keeps memory bounded by the longest
// record, whatever the file size. A bad file is rejected whole: the reader
// stops at the first problem and returns an *ingest.Error naming the file,
// the line (the feature's line for GeoJSON, the record number for
// shapefiles, the sheet row for XLSX) and the reason; the caller discards
// what it was given. An error returned by the callback stops the reader and
// is returned unchanged.
//
//	dataset                                  reader                     sample
//	AER ST37 WellList.txt (18 or 24 cols)    ReadWellList               real (2017, 18 cols)
//	AER ST37 shapefiles ST37_SH / ST37_BH    ReadWellHoles              none: a real loader's fields
//	AER ST104A BA register (XLSX, as AER     ReadBACodesXLSX            real workbook (not in git:
//	publishes it; or saved as CSV)           ReadBACodes                testdata/real/aer-st104a), CSV
//	Petrinex PRABAIdentifiers.csv            ReadBACodes                none: named columns
//	AER Pipelines (GeoJSON or shapefile;     ReadPipelinesGeoJSON,      real (1 segment); older
//	current and older exports)               ReadPipelinesShapefile     form from a real loader
//	Petrinex Conventional Volumetrics        ReadVolumetrics            real
//	Petrinex NGL and Marketable Gas          ReadNGLVolumes             real (+ the PDF's names)
//	Petrinex Facility Infrastructure         ReadFacilities             real (8 of 39 cols)
//	Petrinex Well Infrastructure             ReadPetrinexWells          real values, documented columns
//	Orphan Well Association inventory XLSX   ReadOrphanInventory        none: verified layout (OWALayout)
//	Alberta Crown agreements (GeoView)       ReadAlbertaAgreements      none: verified layout
//	                                                                    (AlbertaAgreementLayout)
//	Crown PNG/mineral dispositions SK/MB     ReadDispositionsCSV,       none: our own layout, guessed
//	                                         ReadDispositionsGeoJSON    (DispositionCSVLayout, ...)
//
// Readers declare the layouts they read as ingest.Layout values (OWALayout,
// AlbertaAgreementLayout, DispositionCSVLayout, DispositionGeoJSONLayout);
// DispositionLayoutOf says which one a disposition file is, so an ingest can
// print each file's Layout.Banner first.
//
// Readers whose dataset has several published forms declare each as an
// ingest.Layout (PetrinexWellLayout, ST104AWorkbookLayout, ST104ALayout, PetrinexBALayout,
// NGLLayout, NGLDocumentedLayout, PipelineLayout, PipelineOlderLayout,
// ST37SurfaceHoleLayout, ST37BottomHoleLayout) and tell ReadOptions.Layout
// which one a file's header matched. A value that is merely new (a status
// word not seen before) is an ingest.Notice in ReadOptions.Notices, not an
// error; each reader's doc says which values are fatal and which notices.
//
// Formats, traps and codes are those of docs/data-sources.md §0-§8. Values
// keep their published meaning: dates are time.Time (UTC midnight; the zero
// time when the source has none), months "YYYY-MM" strings, numbers float64
// or int, codes strings with their leading zeros, legal land descriptions
// lld.Location. Petrinex numbers are Amount values, which keep "***"
// (confidential, not zero) apart from 0 and from an empty cell.
//
// The demo files in these formats are generated elsewhere (package
// demo/energydemo): this package only reads, and never links a generator.
package energyingest
