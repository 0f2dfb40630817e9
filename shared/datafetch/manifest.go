package datafetch

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
)

// Access says what a publisher asks of whoever downloads a dataset.
type Access uint8

const (
	// Open: the URL answers the file to anyone, under the licence named.
	Open Access = iota
	// ClickThrough: the file is free, but the publisher's site asks the
	// user to accept a licence first; the URL may answer a page instead of
	// the file until that is done in a browser.
	ClickThrough
	// Account: the publisher asks for a (free) account or an order; the URL
	// names the product, not a file Meridian can fetch on its own.
	Account
	// Page: the file's link changes with every release; the URL is the
	// page that lists it.
	Page
)

func (a Access) String() string {
	switch a {
	case Open:
		return "open"
	case ClickThrough:
		return "click-through licence"
	case Account:
		return "free account or order"
	case Page:
		return "link found on a page"
	}
	return fmt.Sprintf("access(%d)", a)
}

// Unattended reports whether a default run (no -dataset) fetches an entry:
// open and click-through downloads are tried, account and page ones are
// listed with what the user must do.
func (a Access) Unattended() bool { return a == Open || a == ClickThrough }

// Period expands a source's URL over recent releases.
type Period uint8

const (
	Once    Period = iota // one URL, no placeholders
	Monthly               // {month} = YYYY-MM, {yymm} = YYMM
	Yearly                // {year} = YYYY
)

// Ingest names the `meridian ingest` run that reads a dataset.
type Ingest struct {
	Kind   string // "grid", "energy" or "ag"
	Format string // grid only: ats, mb, sk or on
}

func (i Ingest) String() string {
	if i.Format != "" {
		return "ingest " + i.Kind + " -format " + i.Format
	}
	return "ingest " + i.Kind
}

// Source is one URL of a dataset and what it holds.
type Source struct {
	// URL as published; Monthly and Yearly sources carry placeholders.
	URL string
	// Name the download is saved as, when the URL's last segment is not a
	// file name (an API path such as …/CSV); default: that segment.
	Name string
	// Files are the file names (globs, case-insensitive, matched against
	// base names) the download must hold once unpacked: a missing one
	// rejects the download. Placeholders as in URL.
	Files []string
	// Optional: a 404 means "not published for this period" (a drought
	// class with no area that month), not a failure.
	Optional bool
	// Size and SHA256, when the publisher states them; zero when not.
	Size   int64
	SHA256 string
}

// Entry is one official dataset.
type Entry struct {
	Key       string // -dataset NAME
	Publisher string
	Product   string
	Sources   []Source
	Period    Period
	Count     int // Monthly/Yearly: how many releases back, newest first
	Lag       int // Monthly/Yearly: releases between now and the newest published
	Licence   string
	Cadence   string
	Access    Access
	// Note says what the publisher requires and what is unverified.
	Note string
	// Verified is true when the URLs were seen in a real download; false
	// when they come from documentation and must be checked on first use.
	Verified bool
	Ingest   Ingest
}

// Expanded is a Source of one release, with its placeholders filled in.
type Expanded struct {
	Source
	Period string // "2026-10", "2025" or ""
}

// Expand returns the sources of e for the releases current at now, newest
// first.
func (e Entry) Expand(now time.Time) []Expanded {
	var periods []map[string]string
	switch e.Period {
	case Monthly:
		base := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < max(e.Count, 1); i++ {
			m := base.AddDate(0, -(e.Lag + i), 0)
			periods = append(periods, map[string]string{"{month}": m.Format("2006-01"), "{yymm}": m.Format("0601"), "{year}": m.Format("2006")})
		}
	case Yearly:
		for i := 0; i < max(e.Count, 1); i++ {
			y := fmt.Sprint(now.Year() - e.Lag - i)
			periods = append(periods, map[string]string{"{year}": y})
		}
	default:
		periods = []map[string]string{nil}
	}
	var out []Expanded
	for _, p := range periods {
		for _, s := range e.Sources {
			x := Expanded{Source: s}
			x.URL = fill(s.URL, p)
			x.Name = fill(s.Name, p)
			x.Files = nil
			for _, f := range s.Files {
				x.Files = append(x.Files, fill(f, p))
			}
			if p != nil {
				x.Period = p["{month}"]
				if x.Period == "" {
					x.Period = p["{year}"]
				}
			}
			if x.Name == "" {
				x.Name = nameOf(x.URL)
			}
			out = append(out, x)
		}
	}
	return out
}

func fill(s string, p map[string]string) string {
	for k, v := range p {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// nameOf is the last path segment of a URL, without its query.
func nameOf(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	n := path.Base(u)
	if n == "." || n == "/" {
		return "download"
	}
	if un, err := url.PathUnescape(n); err == nil {
		n = un
	}
	return n
}

// Lookup returns the manifest entry named key.
func Lookup(key string) (Entry, bool) {
	for _, e := range Manifest() {
		if e.Key == key {
			return e, true
		}
	}
	return Entry{}, false
}

// Keys lists the manifest's dataset keys in manifest order.
func Keys() []string {
	var out []string
	for _, e := range Manifest() {
		out = append(out, e.Key)
	}
	return out
}

const (
	oglCanada  = "Open Government Licence – Canada 2.0"
	oglAlberta = "Open Government Licence – Alberta"
	aerTerms   = "AER copyright and terms of use (free download, attribution); not OGL-AB"
	petrinex   = "Government of Alberta Crown copyright, Petrinex terms of use (commercial use may need consent)"
)

// Manifest lists every official dataset `meridian ingest` reads, as the
// publishers name them (docs/data-sources.md, docs/real-layouts.md,
// docs/survey-geometry.md). Entries whose URL was not seen in a real
// download say so (Verified false).
func Manifest() []Entry {
	petrinexFiles := "https://www.petrinex.gov.ab.ca/publicdata/API/Files/"
	return []Entry{
		// Survey grids.
		{
			Key: "altalis-ats", Publisher: "AltaLIS Ltd. for the Province of Alberta", Product: "ATS v4.1 coordinate file (ATS_V4_1.SEQ)",
			Sources: []Source{{URL: "https://www.altalis.com/", Name: "ATS_V4_1.zip", Files: []string{"ATS_V4_1*.SEQ"}}},
			Licence: oglAlberta, Cadence: "a few times a year", Access: Page,
			Note:   "free download from altalis.com once the OGL-Alberta terms are accepted on the site; no stable file URL is published: copy the link of the download and pass it with -url",
			Ingest: Ingest{Kind: "grid", Format: "ats"},
		},
		{
			Key: "mb-original-survey", Publisher: "Manitoba Land Initiative / DataMB", Product: "Original Survey Legal Descriptions (CSV) and township system corners",
			Sources: []Source{
				{URL: "https://geoportal.gov.mb.ca/datasets/11fa11f9015b45438d6493dcb3d8071c_0.csv", Name: "Original_Survey_Legal_Descriptions.csv", Files: []string{"Original_Survey_Legal_Descriptions*.csv"}},
				{URL: "https://mli.gov.mb.ca/quarter_sec/data/mb_township_system_corners.zip", Files: []string{"MB_QuarterSectionCorners*.csv"}},
			},
			Licence: "OpenMB Information and Data Use Licence", Cadence: "a few times a year", Access: Open,
			Note:   "DataMB item 11fa11f9015b45438d6493dcb3d8071c; the CSV export URL follows ArcGIS Hub's pattern and is unverified; the corners zip URL is the one MLI lists",
			Ingest: Ingest{Kind: "grid", Format: "mb"},
		},
		{
			Key: "sk-saskgrid", Publisher: "Information Services Corporation (ISC)", Product: "SaskGrid (township, section, quarter, LSD shapefiles)",
			Sources: []Source{{URL: "https://www.isc.ca/MapsandPlans/Pages/SaskGrid.aspx", Name: "SaskGrid.zip", Files: []string{"*TWP*.shp", "*SEC*.shp", "*QTR*.shp", "*LSD*.shp"}}},
			Licence: "ISC terms of use (check before redistributing)", Cadence: "yearly", Access: Account,
			Note:   "ISC distributes SaskGrid under its own licence agreement to account holders; download it by hand, or pass the link ISC gives with -url",
			Ingest: Ingest{Kind: "grid", Format: "sk"},
		},
		{
			Key: "on-lio-lot-fabric", Publisher: "Ontario Ministry of Natural Resources, Land Information Ontario", Product: "Geographic Lot Fabric and Geographic Township Improved",
			Sources: []Source{
				{URL: "https://geohub.lio.gov.on.ca/datasets/lio::geographic-lot-fabric.zip", Name: "Geographic_Lot_Fabric.zip", Files: []string{"Geographic_Lot_Fabric*.shp", "Geographic_Lot_Fabric*.dbf", "Geographic_Lot_Fabric*.prj"}},
				{URL: "https://geohub.lio.gov.on.ca/datasets/lio::geographic-township-improved.geojson", Name: "Geographic_Township_Improved.geojson", Files: []string{"Geographic_Township_Improved*.geojson"}},
			},
			Licence: "Open Government Licence – Ontario", Cadence: "a few times a year", Access: Open,
			Note:   "Ontario GeoHub download (shapefile); the URL is unverified; files come in MNR Lambert (EPSG:3161) or lat/lng, both read",
			Ingest: Ingest{Kind: "grid", Format: "on"},
		},
		// Energy.
		{
			Key: "aer-st37", Publisher: "Alberta Energy Regulator", Product: "ST37: List of Wells in Alberta (WellList.txt)",
			Sources: []Source{{URL: "https://static.aer.ca/prd/documents/sts/st37/ST37.zip", Files: []string{"WellList*.txt"}}},
			Licence: aerTerms, Cadence: "monthly", Access: Open, Verified: true,
			Note:   "~25 MB zip, ~120 MB text",
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "petrinex-ba", Publisher: "Petrinex", Product: "Business associate identifiers (PRABAIdentifiers.csv)",
			Sources: []Source{{URL: "https://www.petrinex.gov.ab.ca/bbreports/PRABAIdentifiers.csv", Files: []string{"PRABAIdentifiers*.csv"}}},
			Licence: petrinex, Cadence: "daily", Access: Open, Verified: true,
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "petrinex-wells", Publisher: "Petrinex", Product: "Well Infrastructure (AB, SK, MB)",
			Sources: []Source{
				{URL: petrinexFiles + "AB/Infra/Well%20Infrastructure/CSV", Name: "Well Infrastructure-AB.zip", Files: []string{"Well Infrastructure-AB*.csv"}},
				{URL: petrinexFiles + "SK/Infra/Well%20Infrastructure/CSV", Name: "Well Infrastructure-SK.zip", Files: []string{"Well Infrastructure-SK*.csv"}},
				{URL: petrinexFiles + "MB/Infra/Well%20Infrastructure/CSV", Name: "Well Infrastructure-MB.zip", Files: []string{"Well Infrastructure-MB*.csv"}},
			},
			Licence: petrinex, Cadence: "daily", Access: Open, Verified: true,
			Note:   "a zip holding a zip holding the CSV (both unpacked); the MB path follows the AB/SK pattern and is unverified",
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "petrinex-facilities", Publisher: "Petrinex", Product: "Facility Infrastructure (AB, SK, MB)",
			Sources: []Source{
				{URL: petrinexFiles + "AB/Infra/Facility%20Infrastructure/CSV", Name: "Facility Infrastructure-AB.zip", Files: []string{"Facility Infrastructure-AB*.csv"}},
				{URL: petrinexFiles + "SK/Infra/Facility%20Infrastructure/CSV", Name: "Facility Infrastructure-SK.zip", Files: []string{"Facility Infrastructure-SK*.csv"}},
				{URL: petrinexFiles + "MB/Infra/Facility%20Infrastructure/CSV", Name: "Facility Infrastructure-MB.zip", Files: []string{"Facility Infrastructure-MB*.csv"}},
			},
			Licence: petrinex, Cadence: "daily", Access: Open, Verified: true,
			Note:   "the MB path follows the AB/SK pattern and is unverified",
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "petrinex-volumetrics", Publisher: "Petrinex", Product: "Conventional Volumetrics, the last 14 production months (AB, SK, MB)",
			Sources: []Source{
				{URL: petrinexFiles + "AB/Vol/{month}/CSV", Name: "Vol_{month}-AB.zip", Files: []string{"Vol_{month}-AB.csv"}},
				{URL: petrinexFiles + "SK/Vol/{month}/CSV", Name: "Vol_{month}-SK.zip", Files: []string{"Vol_{month}-SK.csv"}},
				{URL: petrinexFiles + "MB/Vol/{month}/CSV", Name: "Vol_{month}-MB.zip", Files: []string{"Vol_{month}-MB.csv"}},
			},
			Period: Monthly, Count: 14, Lag: 1,
			Licence: petrinex, Cadence: "monthly (amended months are republished)", Access: Open, Verified: true,
			Note:   "~8 MB zipped per AB month; a new month appears one to two months late; the reports use the trailing 12 months",
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "aer-pipelines", Publisher: "Alberta Energy Regulator", Product: "Pipelines (shapefile, NAD83 geographic)",
			Sources: []Source{{URL: "https://static.aer.ca/prd/data/pipeline/Pipelines_SHP.zip", Files: []string{"Pipelines_GCS_NAD83.shp", "Pipelines_GCS_NAD83.dbf", "Pipelines_GCS_NAD83.shx", "Pipelines_GCS_NAD83.prj"}}},
			Licence: aerTerms, Cadence: "monthly", Access: ClickThrough,
			Note:   "AER product catalogue download (hundreds of MB); the URL is unverified",
			Ingest: Ingest{Kind: "energy"},
		},
		{
			Key: "owa-inventory", Publisher: "Alberta Orphan Well Association", Product: "Site Specific Inventory (XLSX)",
			Sources: []Source{{URL: "https://www.orphanwell.ca/about/orphan-inventory/", Name: "Reporting - Full Inventory.xlsx", Files: []string{"*Inventory*.xlsx"}}},
			Licence: "public file on orphanwell.ca, no stated licence", Cadence: "monthly", Access: Page,
			Note:   "the .xlsx link is date-stamped and changes monthly: copy it from the page and pass it with -url",
			Ingest: Ingest{Kind: "energy"},
		},
		// Agriculture.
		{
			Key: "aafc-aci", Publisher: "Agriculture and Agri-Food Canada", Product: "Annual Crop Inventory, AB/SK/MB, the last 5 seasons (GeoTIFF)",
			Sources: []Source{
				{URL: "https://www.agr.gc.ca/atlas/data_donnees/agr/annualCropInventory/tif/{year}/aci_{year}_ab.zip", Files: []string{"aci_{year}_ab*.tif"}},
				{URL: "https://www.agr.gc.ca/atlas/data_donnees/agr/annualCropInventory/tif/{year}/aci_{year}_sk.zip", Files: []string{"aci_{year}_sk*.tif"}},
				{URL: "https://www.agr.gc.ca/atlas/data_donnees/agr/annualCropInventory/tif/{year}/aci_{year}_mb.zip", Files: []string{"aci_{year}_mb*.tif"}},
			},
			Period: Yearly, Count: 5, Lag: 1,
			Licence: oglCanada, Cadence: "yearly (spring, for the previous season)", Access: Open,
			Note:   "0.5-2 GB per province and year; file names within the folder are unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "aafc-aci-legend", Publisher: "Agriculture and Agri-Food Canada", Product: "Annual Crop Inventory class legend (CSV)",
			Sources: []Source{{URL: "https://www.agr.gc.ca/atlas/data_donnees/agr/annualCropInventory/aci_class_legend.csv", Files: []string{"aci_class_legend*.csv"}}},
			Licence: oglCanada, Cadence: "with each release", Access: Open,
			Note:   "the URL is unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "aafc-landuse", Publisher: "Agriculture and Agri-Food Canada", Product: "Land Use 2015 and 2020, UTM zones 11-14 (GeoTIFF)",
			Sources: landUseSources(),
			Licence: oglCanada, Cadence: "every five years", Access: Open,
			Note:   "folder https://www.agr.gc.ca/atlas/data_donnees/lcv/aafcLand_Use/tif/; the file names per zone are unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "aafc-slc", Publisher: "Agriculture and Agri-Food Canada (CanSIS)", Product: "Soil Landscapes of Canada v3.2: polygons, component table, soil names",
			Sources: []Source{
				{URL: "https://sis.agr.gc.ca/cansis/nsdb/slc/v3.2/ca_all_slc_v3r2.zip", Files: []string{"ca_all_slc_v3r2.shp", "ca_all_slc_v3r2.dbf", "ca_all_slc_v3r2.prj", "ca_all_slc_v3r2_cmp.dbf"}},
				{URL: "https://sis.agr.gc.ca/cansis/nsdb/soil/v2/snt/soil_name_ab_sk_mb.zip", Files: []string{"soil_name*.dbf"}},
			},
			Licence: "free use with acknowledgement of AAFC authorship (OGL – Canada on open.canada.ca)", Cadence: "static (2011)", Access: Open,
			Note:   "~100 MB; the URLs are unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "agrasid-lsrs", Publisher: "Alberta Agriculture and Irrigation", Product: "AGRASID 4.1 dominant LSRS for quarter sections",
			Sources: []Source{{URL: "https://open.alberta.ca/dataset/agrasid-4-1/resource/AGRASID41SHP.zip", Files: []string{"DominantAGRASID_LSRS*.shp", "DominantAGRASID_LSRS*.dbf", "DominantAGRASID_LSRS*.prj"}}},
			Licence: oglAlberta, Cadence: "rarely (yearly at most)", Access: Open,
			Note:   "open.alberta.ca download; the resource URL is unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "cli-agriculture", Publisher: "Natural Resources Canada / AAFC", Product: "Canada Land Inventory 1:250,000, land capability for agriculture",
			Sources: []Source{{URL: "https://ftp.maps.canada.ca/pub/nrcan_rncan/vector/canada-land-inventory/cli_agriculture_250k.zip", Files: []string{"cli_agr*.shp", "cli_agr*.dbf", "cli_agr*.prj"}}},
			Licence: oglCanada, Cadence: "static", Access: Open,
			Note:   "the URL is unverified",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "aafc-drought", Publisher: "Agriculture and Agri-Food Canada (NAIS)", Product: "Canadian Drought Monitor, latest month, one GeoJSON per class D0-D4",
			Sources: droughtSources(),
			Period:  Monthly, Count: 1, Lag: 1,
			Licence: oglCanada, Cadence: "monthly, by the 10th", Access: Open,
			Note:   "a class with no area that month has no file (404 is not an error); the host and folder are unverified, the file names are as published",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "nrcan-hydro", Publisher: "Natural Resources Canada", Product: "CanVec hydro water bodies and NHN network flow",
			Sources: []Source{
				{URL: "https://ftp.maps.canada.ca/pub/nrcan_rncan/vector/canvec/fgdb/Hydro/waterbody_2.geojson.zip", Files: []string{"waterbody_2*"}},
				{URL: "https://ftp.maps.canada.ca/pub/nrcan_rncan/vector/geobase_nhn_rhn/shp_en/nhn_hn_nlflow_1.zip", Files: []string{"NHN_HN_NLFLOW_1*.shp", "NHN_HN_NLFLOW_1*.dbf"}},
			},
			Licence: oglCanada, Cadence: "periodic", Access: Open,
			Note:   "GBs per province; the paths are unverified (NHN comes per work unit)",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "bc-alr", Publisher: "Agricultural Land Commission / DataBC", Product: "ALR polygons (OATS_ALR_POLYS)",
			Sources: []Source{{URL: "https://catalogue.data.gov.bc.ca/dataset/alc-alr-polygons", Name: "OATS_ALR_POLYS.zip", Files: []string{"TSLRPLS_polygon.shp", "TSLRPLS_polygon.dbf", "TSLRPLS_polygon.prj"}}},
			Licence: "Open Government Licence – British Columbia", Cadence: "quarterly", Access: Account,
			Note:   "DataBC's distribution service sends the shapefile link by e-mail after an order (no account needed, but no fixed URL): order it and pass the link with -url",
			Ingest: Ingest{Kind: "ag"},
		},
		{
			Key: "bc-fwa-wetlands", Publisher: "GeoBC / DataBC", Product: "Freshwater Atlas wetlands (WFS GeoJSON)",
			Sources: []Source{{URL: "https://openmaps.gov.bc.ca/geo/pub/wfs?service=WFS&version=2.0.0&request=GetFeature&typeName=WHSE_BASEMAPPING.FWA_WETLANDS_POLY&outputFormat=json&srsName=EPSG:4326", Name: "FWA_WETLANDS_POLY.geojson", Files: []string{"FWA_WETLANDS_POLY*.geojson"}}},
			Licence: "Open Government Licence – British Columbia", Cadence: "rarely", Access: Open,
			Note:   "the WFS caps features per request (check the server's count limit before relying on one request)",
			Ingest: Ingest{Kind: "ag"},
		},
	}
}

func landUseSources() []Source {
	var out []Source
	for _, y := range []string{"2015", "2020"} {
		for _, z := range []string{"11", "12", "13", "14"} {
			out = append(out, Source{
				URL:   "https://www.agr.gc.ca/atlas/data_donnees/lcv/aafcLand_Use/tif/" + y + "/IMG_AAFC_LANDUSE_Z" + z + "_" + y + ".zip",
				Files: []string{"IMG_AAFC_LANDUSE_Z" + z + "_" + y + "*.tif"},
			})
		}
	}
	return out
}

func droughtSources() []Source {
	var out []Source
	for d := 0; d <= 4; d++ {
		f := fmt.Sprintf("CDM_{yymm}_D%d_LR.geojson", d)
		out = append(out, Source{
			URL:      "https://agriculture.canada.ca/atlas/data_donnees/canadianDroughtMonitor/data_donnees/geoJSON/areasofDrought/{year}/cdm_{yymm}_drought_areas/" + f,
			Files:    []string{f},
			Optional: true,
		})
	}
	return out
}
