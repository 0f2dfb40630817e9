package tile

// The feature properties of each data archive package datalayers builds,
// by archive name, for TileJSON vector_layers. Every data archive of the
// spec has them (datalayers' tests check all 30 build and decode).
var (
	fID    = Field{Name: "id", Description: "the block's legal land description (canonical)"}
	fLSDs  = Field{Name: "lsds", Description: "LSDs of the block with data"}
	fQtrs  = Field{Name: "quarters", Description: "quarter sections of the block with data"}
	wellFs = []Field{
		{Name: "wells_total", Description: "wells, every status"},
		{Name: "wells_active", Description: "active wells"},
		{Name: "wells_suspended", Description: "suspended wells"},
		{Name: "wells_abandoned", Description: "abandoned wells"},
		{Name: "wells_orphan", Description: "orphan wells"},
		{Name: "wells_reclamation_certified", Description: "reclamation-certified wells"},
		{Name: "facilities", Description: "facilities"},
		{Name: "pipeline_segments", Description: "pipeline segments crossing"},
	}
	prodFs = []Field{
		{Name: "oil_m3", Description: "oil, trailing 12 months (m³)"},
		{Name: "gas_e3m3", Description: "gas, trailing 12 months (10³ m³)"},
		{Name: "condensate_m3", Description: "condensate, trailing 12 months (m³)"},
		{Name: "water_m3", Description: "water, trailing 12 months (m³)"},
		{Name: "producing_wells", Description: "wells with production in the window"},
		{Name: "last_producing_month", Description: "latest month with a positive volume (YYYY-MM)"},
	}
	cropFs = []Field{
		{Name: "dominant_crop", Description: "dominant crop name (roll-ups: the most common of the quarters')"},
		{Name: "dominant_crop_code", Description: "dominant crop inventory code"},
		{Name: "crop_category", Description: "dominant crop category"},
	}
	cropQSFs = []Field{
		{Name: "rotation", Description: "crop rotation"},
		{Name: "diversity_index", Description: "crop diversity index"},
		{Name: "years_covered", Description: "years of crop inventory covered"},
	}
	lsrsFs = []Field{
		{Name: "lsrs_score", Description: "LSRS rating score (roll-ups: area-weighted mean of the quarters')"},
		{Name: "lsrs_class", Description: "LSRS class (roll-ups: the class of the largest area)"},
	}
	lsrsQSFs = []Field{
		{Name: "lsrs_limiter", Description: "LSRS limiting factor, absent when none"},
		{Name: "cli_class", Description: "Canada Land Inventory class"},
	}
	soilF     = Field{Name: "soil_order", Description: "soil order of the dominant SLC component (roll-ups: of the largest area)"}
	rollAgFs  = []Field{fQtrs, {Name: "area_ha", Description: "area of the quarters with data (ha)"}}
	fTenureID = Field{Name: "id", Description: "from zoom 10, the LSD (one feature per LSD); below, the disposition id (one feature per disposition, its LSDs merged)"}
	tenureFs  = []Field{
		{Name: "disposition_id", Description: "the disposition over the LSD expiring soonest"},
		{Name: "dispositions", Description: "dispositions over the LSD; absent below zoom 10"},
		{Name: "holder", Description: "its holder's name"},
		{Name: "holder_ba_code", Description: "its holder's business associate code, when known"},
		{Name: "disposition_type", Description: "its type (lease, licence, permit, ...)"},
		{Name: "status", Description: "its status"},
		{Name: "expiry_date", Description: "its expiry date (YYYY-MM-DD), absent when perpetual or undated"},
		{Name: "perpetual", Description: "whether it is continued indefinitely"},
	}
	facFs = []Field{
		{Name: "id", Description: "facility id"},
		{Name: "name", Description: "facility name"},
		{Name: "category", Description: "facility category"},
		{Name: "sub_type", Description: "Petrinex facility subtype"},
		{Name: "status", Description: "facility status"},
		{Name: "operator", Description: "operator name"},
		{Name: "licence_number", Description: "licence number"},
		{Name: "lsd", Description: "the LSD the facility is on"},
	}
	facLabelFs = []Field{
		{Name: "id", Description: "facility id"},
		{Name: "label", Description: "the text to draw: the facility name, else its id"},
		{Name: "category", Description: "facility category"},
	}
	minLabelFs = []Field{
		{Name: "disposition_id", Description: "disposition id"},
		{Name: "label", Description: "the text to draw: the disposition number"},
		{Name: "holder", Description: "holder name"},
		{Name: "expiry_date", Description: "expiry date (YYYY-MM-DD), absent when perpetual or undated"},
	}
)

func catFields(parts ...[]Field) []Field {
	var out []Field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func one(f Field) []Field { return []Field{f} }

// dataFields is the property list of every data archive that is built.
var dataFields = map[string][]Field{
	"og_activity_lsd":         catFields(one(fID), wellFs),
	"og_activity_sec":         catFields(one(fID), one(fLSDs), wellFs),
	"og_activity_twp":         catFields(one(fID), one(fLSDs), wellFs),
	"lsd_production_12mo":     catFields(one(fID), prodFs),
	"lsd_production_12mo_sec": catFields(one(fID), one(fLSDs), prodFs),
	"lsd_production_12mo_twp": catFields(one(fID), one(fLSDs), prodFs),
	"ag_summary_qs":           catFields(one(fID), cropFs, lsrsFs, one(soilF), []Field{{Name: "cli_class", Description: "Canada Land Inventory class"}, {Name: "land_use", Description: "dominant land use"}, {Name: "drought_class", Description: "latest drought class"}}),
	"ag_summary_sec":          catFields(one(fID), rollAgFs, cropFs, lsrsFs, one(soilF)),
	"ag_summary_twp":          catFields(one(fID), rollAgFs, cropFs, lsrsFs, one(soilF)),
	"aafc_crop_summary":       catFields(one(fID), cropFs, cropQSFs),
	"aafc_crop_summary_sec":   catFields(one(fID), rollAgFs, cropFs),
	"aafc_crop_summary_twp":   catFields(one(fID), rollAgFs, cropFs),
	"lsrs_productivity":       catFields(one(fID), lsrsFs, lsrsQSFs, one(soilF)),
	"lsrs_productivity_sec":   catFields(one(fID), rollAgFs, lsrsFs, one(soilF)),
	"lsrs_productivity_twp":   catFields(one(fID), rollAgFs, lsrsFs, one(soilF)),
	"facilities":              facFs,
	"facilities_labels":       facLabelFs,
	"petroleum_tenure":        catFields(one(fTenureID), tenureFs),
	"mineral_tenure":          catFields(one(fTenureID), tenureFs),
	"mineral_tenure_labels":   minLabelFs,
	"pipelines": {
		{Name: "id", Description: "pipeline segment id"},
		{Name: "licence_number", Description: "pipeline licence"},
		{Name: "label", Description: "the text to draw along the line: licence-line"},
		{Name: "status", Description: "segment status"},
		{Name: "substance", Description: "substances carried"},
		{Name: "h2s_pct", Description: "H2S content (%), absent when not published"},
	},
	"soils": {
		{Name: "id", Description: "SLC polygon id"},
		{Name: "poly_id", Description: "SLC polygon id"},
		{Name: "soil_name", Description: "dominant component's soil name"},
		{Name: "soil_order", Description: "its soil order"},
		{Name: "great_group", Description: "its great group"},
		{Name: "subgroup", Description: "its subgroup"},
		{Name: "drainage", Description: "its drainage class"},
	},
	"sk_ag_crown_land": {
		{Name: "id", Description: "the parcel's legal land description"},
		{Name: "lld", Description: "the parcel's legal land description"},
		{Name: "lease_type", Description: "lease type (grazing, cultivation, hay, ...)"},
		{Name: "status", Description: "leased or vacant"},
		{Name: "disposition", Description: "lease or disposition number, empty when absent"},
	},
	"sk_ag_crown_land_labels": {{Name: "id", Description: "the parcel's legal land description"}, {Name: "label", Description: "the text to draw"}},
	"sk_pastures": {
		{Name: "id", Description: "pasture name"},
		{Name: "name", Description: "pasture name"},
		{Name: "program", Description: "pasture program"},
	},
	"sk_pastures_labels": {{Name: "id", Description: "pasture name"}, {Name: "label", Description: "the text to draw"}},
	"bc_ag_capability": {
		{Name: "id", Description: "polygon sequence number in the source file"},
		{Name: "capability", Description: "the rating as maps print it, components A to C: class, tenths after ^, subclass letters (\"4^6W 5^4T\")"},
		{Name: "class", Description: "component A's class, 1 (no significant limitations) to 7, or O (organic)"},
		{Name: "class_description", Description: "what the class means"},
		{Name: "limitation", Description: "component A's first subclass letter (C climate, W excess water, T topography, ...), absent when none"},
		{Name: "limitation_description", Description: "what the subclass means, absent when none"},
		{Name: "score", Description: "productivity score 0-100 on the LSRS class bands, absent for organic soils"},
	},
	"bc_alr": {
		{Name: "id", Description: "ALR polygon id"},
		{Name: "alr_poly_id", Description: "ALR polygon id"},
		{Name: "status", Description: "ALR status as published"},
		{Name: "area_ha", Description: "published area (ha), 0 when not published"},
	},
	"bc_alr_labels": {{Name: "id", Description: "ALR polygon id"}, {Name: "label", Description: "the text to draw: status and area"}},
	"bc_fwa_wetlands": {
		{Name: "id", Description: "Freshwater Atlas waterbody polygon id"},
		{Name: "waterbody_poly_id", Description: "Freshwater Atlas waterbody polygon id"},
		{Name: "name", Description: "gazetted name, empty when unnamed"},
		{Name: "watershed_group", Description: "watershed group code"},
		{Name: "area_ha", Description: "area (ha), 0 when not published"},
	},
}
