// Package agingest reads the public datasets behind the agriculture report
// (GET /ag/report) in their published formats, streaming, and writes a
// demo dataset in the same formats.
//
// # Readers
//
// The readers cover the Prairie datasets of the agriculture report (AB,
// SK, MB) and two British Columbia layers, the Agricultural Land Reserve
// and the Freshwater Atlas wetlands.
//
// Every reader takes a Source (a CSV, DBF, GeoJSON or shapefile input;
// Open picks the format from a file name) and calls fn once per record in
// file order, holding one record (or one small group) at a time, so memory
// does not grow with the file. A bad file is rejected whole: the reader
// stops at the first problem and returns an *ingest.Error naming the file,
// the line (CSV and GeoJSON: the 1-based line where the record starts;
// DBF and shapefile: the record number, 0 for the header) and the reason.
// Records already passed to fn belong to the rejected file and must be
// discarded by the caller. Errors returned by fn stop the reader and come
// back unchanged. Column and property names are matched without regard to
// case; columns a reader does not use are ignored.
//
//	dataset (docs/data-sources.md)      reader                  formats
//	SLC v3.2 component table (§12)      ReadComponents,         DBF, CSV
//	                                    ReadPolygonComponents
//	SLC soil names, soil layers (§12)   ReadSoilNames,          DBF, CSV
//	                                    ReadSoilLayers
//	SLC polygons (PAT) (§12)            ReadSLCPolygons         shapefile, DBF, CSV
//	ACI class legend (§10)              ReadCropLegend          CSV
//	ACI rasters (§10)                   ReadCropRaster          GeoTIFF (per quarter by zonal statistics, raster.go)
//	Land Use rasters (§11)              ReadLandUseRaster       GeoTIFF (idem)
//	ACI, Land Use per-quarter cache     ReadCropSummaries,      CSV (Meridian's layout, zonal.go; not published)
//	                                    ReadLandUse
//	AGRASID quarter LSRS (§14)          ReadAGRASIDLSRS         shapefile, DBF, CSV
//	SK/MB LSRS by SLC polygon (§14)     ReadSLCLSRS             CSV, DBF (Meridian's layout)
//	CLI capability (§13)                ReadCLI                 shapefile, GeoJSON, DBF, CSV
//	Canadian Drought Monitor (§15)      ReadDrought             GeoJSON a class (CDM_{yy}{mm}_D{d}_LR)
//	NHN / CanVec hydro (§16)            ReadWaterBodies,        shapefile, GeoJSON
//	                                    ReadWatercourses
//	Municipal boundaries (§17)          ReadMunicipalities      shapefile, GeoJSON
//	SK Crown land, pastures (§18)       ReadCrownLand,          shapefile, GeoJSON
//	                                    ReadPastures
//	BC Agricultural Land Reserve (§19)  ReadALR                 shapefile, GeoJSON
//	BC Freshwater Atlas wetlands (§20)  ReadFWAWetlands         shapefile, GeoJSON
//
// DBF tables on their own (the SLC CMP, SNT and SLT tables) are read with
// package shp's reader. Shapefile coordinates are converted from the .prj's
// system by package proj; without a .prj, and in GeoJSON without a legacy
// crs member, they must be longitude and latitude. Geometries come back in
// NAD83 longitude and latitude, polygons with the outer ring
// counter-clockwise and holes clockwise.
//
// Every reader of the agriculture layers declares the layouts it reads as
// ingest.Layout values (CLIServiceLayout, DroughtGeoJSONLayout, NHNLayout,
// ALRShapefileLayout, SKCrownLandLayout, ...), verified where
// docs/real-layouts.md holds evidence of the published layout, guessed
// otherwise with what to check; Source.Recognised reports which one a file
// matched. A reader of several layouts chooses by the columns the file
// holds (ingest.Candidate): a file with none of its layouts' required
// columns is an error naming its columns and the closest layout's missing
// ones, never read as a fallback layout. Files are read as real downloads
// come (package ingest): rows that are not records and features whose
// geometry is invalid are skipped with a notice naming them. A value a reader cannot place is an ingest.BadValue and rejects
// the file; a merely new value it can place goes to Source.Notices. Each
// reader's documentation says which values are which; unverified codes are
// marked ⚠.
//
// # Code tables and report values
//
// The code tables carry labels: SLC soil orders, great groups, subgroup
// prefixes, drainage, kind, slope, stoniness and surface form (Classify
// gives "O.BLC" = "Orthic Black Chernozem"); ACI classes with Meridian's
// crop categories (CropClasses); Land Use classes with their IPCC groups
// (LandUseClasses); LSRS and CLI subclasses (LSRSLimitation,
// CLILimitation); drought classes (DroughtClass.Label); census subdivision
// types (CSDType). Helpers turn records into what the report shows:
// Dominant and DescribeSoil (soil), Summarize (cropping), DescribeLandUse
// (land_use), Rating.Score and CLIPolygon.Score (productivity, the class
// bands of ScoreRange).
//
// # Demo data
//
// The demo and province-size generators (demo/agdemo: Write, WriteScale)
// write invented data in exactly these formats, deterministically, with
// each report section present for some quarters and absent for others;
// this package does not link them.
package agingest
