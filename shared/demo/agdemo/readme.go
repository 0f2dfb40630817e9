package agdemo

const demoReadme = `# Meridian demo agriculture data — INVENTED

Every value in these files is invented for demonstration and testing
(package meridian/shared/demo/agdemo, Write). The files have the layouts
of the real datasets (AAFC Annual Crop Inventory and Land Use GeoTIFFs,
clipped around the demo townships and named with a _demo-<township> suffix, Soil Landscapes of Canada v3.2, AGRASID LSRS, Canada Land
Inventory, Canadian Drought Monitor, NHN/CanVec hydro, municipal
boundaries, Saskatchewan Crown land and pastures, BC agricultural capability,
the BC Agricultural Land Reserve and Freshwater Atlas wetlands), but soil names,
ratings and crops are made up, and every name the demo gives a
municipality, water body, watercourse, pasture or wetland is invented and
contains "Demo" ("Demo Lake 1", "RM of Demo East No. 901"): no real place
is named at a made-up spot. SLC polygon ids 990001-990012 (ecodistrict
990) do not exist in the real SLC. Municipalities carry DEMO=Y; ALR
polygon ids 40211-40214 and wetland ids 700101-700112 are invented.

The Canadian Drought Monitor is written as AAFC publishes it: one GeoJSON
file per month and class, CDM_{yy}{mm}_D{d}_LR.geojson (2025-06: D0;
2025-07: D0, D1; 2025-08: D0 to D2), features without attributes.
Municipal boundaries: AB and SK as Statistics Canada census subdivisions
(municipalities.geojson), Manitoba in its own layout (MUNI_NAME,
MUNI_TYPE, MUNI_LIST_NAME_WITH_TYPE; municipalities_mb.geojson).

Townships: AB 24-1-W5, 25-1-W5, 50-26-W4, 48-7-W5, 10-15-W4; SK 10-14-W2,
38-5-W3, 50-20-W3; MB 5-6-W1, 10-9-W1, 14-26-W1 (all 144 quarters each).
BC map layers only (the report does not cover BC), in BC Albers
(EPSG:3005) as DataBC publishes them: 83-18-W6 and 84-19-W6 near Fort
St. John.

What is deliberately missing, so that every report section is absent
somewhere:

| section | missing for |
|---|---|
| productivity.lsrs | 50-20-W3 (no SLC LSRS row); AB 48-7-W5 sections 31-36 (no AGRASID row); NE-36-10-15-W4 not rated |
| productivity.cli | 50-20-W3, 14-26-W1 |
| cropping | 50-20-W3 sections 19-24 |
| soil | 14-26-W1 sections 19-36 (no SLC polygon) |
| land_use | 10-9-W1 |
| drought (2025-08) | 48-7-W5, 50-20-W3, 10-9-W1, 14-26-W1, and NE-18-38-5-W3 (a hole in the D0 area) |
| wetlands | 10-15-W4, 10-14-W2, 38-5-W3, 5-6-W1 |
| hydrology | 10-14-W2 (no water at all) |
| parcel_context | 50-20-W3 (no municipality) |
| provincial_detail | AB (none by design); SK Crown land only in 38-5-W3 and 50-20-W3, pastures in 10-14-W2 and 38-5-W3 |
`

func (d *demo) readme() error { return d.write("README.md", []byte(demoReadme)) }
