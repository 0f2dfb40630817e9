// Package gridingest reads the official survey grids in the layouts their
// publishers ship — AltaLIS ATS v4.1 (the ATS_V4_1.SEQ coordinate file and
// the polygon Shapefiles), the Manitoba Original Survey CSV and
// MB_QuarterSectionCorners.csv, ISC SaskGrid Shapefiles, and LIO's
// Geographic Lot Fabric and Geographic Township Improved — streaming, and
// turns them into grid index records (BuildGrid writes the index). Each
// reader declares its layouts as ingest.Layout values (verified against
// published evidence or marked guessed) and says which one a file matched
// in its Stats. A bad file is rejected whole with an *ingest.Error naming
// the file, the line or record and the reason.
package gridingest
