// The MapLibre style of the map page, built from /map/config.json: the
// basemap (by default the offline archive served by this server: land,
// water, rivers, boundaries and places; or a raster template; a style URL
// is merged in app.js), the agriculture and energy archives built so far
// (fills and points, hidden until chosen), then for each survey grid a
// coverage fill at small scales (townships and NTS sheets, so that every
// system shows where it is from the first view), a line layer and, where
// the grid has one, a label layer, then the search result and the batch on
// top.
//
// Labels are ordinary symbol layers. The style has no "glyphs" URL, so
// MapLibre (5.11 and later) draws the text with the browser's own fonts
// instead of downloading glyph PBFs; that is all an offline page needs for
// short Latin descriptors such as "NW-25" or "A-2-F".

export const BACKGROUND = '#f5f3ee'; // land; also #map's background in app.css
export const WATER = '#cfe0ec';
export const RESULT = '#d6336c';
export const BATCH = '#1864ab';

// Grids drawn as a coverage fill before their lines start: the coarsest
// grid of each system, whose tiles exist from zoom 0.
const COVER = new Set(['twp', 'series']);
const COVER_FROM = 3;

// One colour per layer group (DLS Alberta, NTS, ...), in config order.
const PALETTE = ['#9c4221', '#2c5282', '#276749', '#6b46c1', '#975a16', '#0f766e', '#4a5568'];

// Zoom from which a grid's lines are drawn: about where its cells are 8 px
// across, so that fine grids do not turn a small-scale map grey. Labels
// start two levels later, when cells are about 30 px. A grid missing here
// starts at the first zoom of its tiles.
const LINES_FROM = {
  series: 3, twp: 6, block: 8, sec: 9, con: 9, qtr: 10, unit: 11, lsd: 11, lot: 11, 'qtr-unit': 12,
};

export const EMPTY = { type: 'FeatureCollection', features: [] };

// linesFrom returns the zoom from which layer l (a config.layers entry) is drawn.
export function linesFrom(l) {
  return Math.max(LINES_FROM[l.grid] ?? l.min_zoom, l.min_zoom);
}

// drawnFrom returns the zoom from which anything of layer l is drawn: its
// coverage fill, its lines, or a data archive's first zoom.
export function drawnFrom(l) {
  if (l.kind === 'data') return l.min_zoom;
  return COVER.has(l.grid) ? Math.min(COVER_FROM, linesFrom(l)) : linesFrom(l);
}

// mapLayerIDs returns the MapLibre layer ids drawn for config layer l.
export function mapLayerIDs(l) {
  if (l.kind === 'data') return [`${l.id}-data`];
  const ids = [`${l.id}-lines`];
  if (l.label) ids.push(`${l.id}-labels`);
  if (COVER.has(l.grid)) ids.push(`${l.id}-cover`);
  return ids;
}

// basemapLayers returns the sources and layers of cfg.basemap: the offline
// archive's land, water, rivers, boundaries and places, or a raster
// template ('style' is merged by app.js, 'none' draws the background).
function basemapLayers(bm, origin) {
  if (bm?.kind === 'raster') {
    return {
      sources: { basemap: { type: 'raster', tiles: [bm.url], tileSize: 256, attribution: bm.attribution } },
      below: [{ id: 'basemap-raster', type: 'raster', source: 'basemap' }],
      above: [],
    };
  }
  if (bm?.kind !== 'offline') return { sources: {}, below: [], above: [] };
  const src = { source: 'basemap' };
  const byZoom = (...stops) => ['interpolate', ['linear'], ['zoom'], ...stops];
  return {
    sources: { basemap: { type: 'vector', url: new URL(bm.url, origin).href } },
    below: [
      { id: 'basemap-land', type: 'fill', ...src, 'source-layer': 'land', paint: { 'fill-color': BACKGROUND } },
      { id: 'basemap-water', type: 'fill', ...src, 'source-layer': 'water', paint: { 'fill-color': WATER } },
      { id: 'basemap-rivers', type: 'line', ...src, 'source-layer': 'rivers',
        paint: { 'line-color': '#9dbfd6', 'line-width': byZoom(3, 0.6, 8, 1.6, 12, 2.5) } },
      { id: 'basemap-provinces', type: 'line', ...src, 'source-layer': 'boundaries', filter: ['==', ['get', 'admin_level'], 4],
        paint: { 'line-color': '#8c7f8e', 'line-width': byZoom(3, 0.8, 10, 2), 'line-dasharray': [3, 2] } },
      { id: 'basemap-countries', type: 'line', ...src, 'source-layer': 'boundaries', filter: ['==', ['get', 'admin_level'], 2],
        paint: { 'line-color': '#6b5b6e', 'line-width': byZoom(3, 1.2, 10, 3) } },
    ],
    // Place and province names go over the grid lines, under the grid labels.
    above: [
      { id: 'basemap-province-labels', type: 'symbol', ...src, 'source-layer': 'province_labels', maxzoom: 7,
        layout: { 'text-field': ['get', 'name'], 'text-font': ['sans-serif'], 'text-size': 13, 'text-letter-spacing': 0.08, 'text-transform': 'uppercase' },
        paint: { 'text-color': '#7a6d7c', 'text-halo-color': BACKGROUND, 'text-halo-width': 1.5 } },
      { id: 'basemap-place-dots', type: 'circle', ...src, 'source-layer': 'places', maxzoom: 10,
        paint: { 'circle-radius': ['match', ['get', 'rank'], 1, 3.5, 2, 3, 2.2], 'circle-color': '#3d3d3d', 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 } },
      { id: 'basemap-places', type: 'symbol', ...src, 'source-layer': 'places',
        layout: {
          'text-field': ['get', 'name'], 'text-font': ['sans-serif'],
          'text-size': ['match', ['get', 'rank'], 1, 15, 2, 13, 3, 12, 11],
          'text-anchor': 'bottom', 'text-offset': [0, -0.3], 'text-padding': 3,
          'symbol-sort-key': ['get', 'rank'],
        },
        paint: { 'text-color': '#2b2b2b', 'text-halo-color': '#fff', 'text-halo-width': 1.5 } },
    ],
  };
}

// groupColours maps each layer group to its colour.
export function groupColours(layers) {
  const groups = [...new Set(layers.map((l) => l.group))];
  return new Map(groups.map((g, i) => [g, PALETTE[i % PALETTE.length]]));
}

// buildStyle returns the style for config cfg. Layers of a group come coarse
// to fine in the config; the first is drawn thickest and labelled largest.
export function buildStyle(cfg, origin) {
  const tiles = new URL(cfg.tiles_url, origin).href.replace(/\/$/, '');
  const key = encodeURIComponent(cfg.api_key);
  // Sources point at the TileJSON so MapLibre learns the tile URLs, zoom
  // range and bounds from the server, and asks for no tiles outside them.
  const tileJSON = (region, grid) => `${tiles}/${region}/${grid}.json?api_key=${key}`;
  const colours = groupColours(cfg.layers);
  const rank = new Map();
  const base = basemapLayers(cfg.basemap, origin);
  const sources = { ...base.sources, result: { type: 'geojson', data: EMPTY }, batch: { type: 'geojson', data: EMPTY } };
  const covers = [];
  const lines = [];
  const labels = [];
  const data = []; // agriculture and energy archives, under the grids, off until chosen
  const dataLabels = [];
  for (const l of cfg.layers) {
    if (l.kind === 'data') {
      sources[l.id] = { type: 'vector', url: tileJSON(l.region, l.grid) };
      const colour = colours.get(l.group);
      const common = { id: `${l.id}-data`, source: l.id, 'source-layer': l.source_layer, layout: { visibility: 'none' } };
      const paint = {
        point: { type: 'circle', paint: { 'circle-color': colour, 'circle-radius': 4, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1 } },
        line: { type: 'line', paint: { 'line-color': colour, 'line-width': 2 } },
        polygon: { type: 'fill', paint: { 'fill-color': colour, 'fill-opacity': 0.35, 'fill-outline-color': colour } },
        label: {
          type: 'symbol',
          layout: { 'text-field': ['get', 'label'], 'text-font': ['sans-serif'], 'text-size': 11, 'text-padding': 2 },
          paint: { 'text-color': colour, 'text-halo-color': BACKGROUND, 'text-halo-width': 1.5 },
        },
      }[l.geometry] ?? { type: 'fill', paint: { 'fill-color': colour, 'fill-opacity': 0.35 } };
      const layer = { ...common, ...paint, layout: { ...paint.layout, ...common.layout } };
      // Data labels go over the grid's: shown only when chosen, they win
      // where the two collide.
      (layer.type === 'symbol' ? dataLabels : data).push(layer);
      continue;
    }
    const r = rank.get(l.group) ?? 0;
    rank.set(l.group, r + 1);
    const colour = colours.get(l.group);
    const from = linesFrom(l);
    sources[l.id] = { type: 'vector', url: tileJSON(l.region, l.grid) };
    if (COVER.has(l.grid)) {
      // Where the system is, before its lines can be told apart.
      covers.push({
        id: `${l.id}-cover`, type: 'fill', source: l.id, 'source-layer': l.source_layer,
        minzoom: COVER_FROM, maxzoom: from + 1,
        paint: { 'fill-color': colour, 'fill-antialias': false, 'fill-opacity': ['interpolate', ['linear'], ['zoom'], from, 0.22, from + 1, 0] },
      });
    }
    // Finer grids go first so that coarser lines are drawn over them.
    lines.unshift({
      id: `${l.id}-lines`,
      type: 'line',
      source: l.id,
      'source-layer': l.source_layer,
      minzoom: from,
      paint: {
        'line-color': colour,
        'line-width': [1.6, 1.0, 0.7][Math.min(r, 2)],
        'line-opacity': ['interpolate', ['linear'], ['zoom'], from, 0.3, from + 1, r === 0 ? 0.9 : 0.7],
      },
    });
    if (!l.label) continue;
    sources[`${l.id}-label`] = { type: 'vector', url: tileJSON(l.region, `${l.grid}-label`) };
    labels.push({
      id: `${l.id}-labels`,
      type: 'symbol',
      source: `${l.id}-label`,
      'source-layer': `${l.source_layer}_label`,
      minzoom: from + 2,
      layout: {
        'text-field': ['get', 'descriptor'],
        'text-font': ['sans-serif'],
        'text-size': r === 0 ? 13 : 11,
        'text-padding': 4,
      },
      paint: {
        'text-color': colour,
        'text-halo-color': BACKGROUND,
        'text-halo-width': 1.5,
      },
    });
  }
  return {
    version: 8,
    sources,
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': cfg.basemap?.kind === 'offline' ? WATER : BACKGROUND } },
      ...base.below,
      ...covers,
      ...data,
      ...lines,
      ...base.above,
      ...shapes('result', RESULT, 0.2, 2.5),
      ...shapes('batch', BATCH, 0.15, 2),
      ...labels,
      ...dataLabels,
    ],
  };
}

// shapes draws the GeoJSON source id (the search result, the batch):
// polygons filled and outlined in colour, centre points as dots.
function shapes(id, colour, opacity, width) {
  return [
    { id: `${id}-fill`, type: 'fill', source: id, paint: { 'fill-color': colour, 'fill-opacity': opacity } },
    { id: `${id}-outline`, type: 'line', source: id, paint: { 'line-color': colour, 'line-width': width } },
    {
      id: `${id}-centroid`, type: 'circle', source: id, filter: ['==', ['geometry-type'], 'Point'],
      paint: { 'circle-color': colour, 'circle-radius': 4, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
    },
  ];
}

// mergeStyle draws ours (buildStyle's, with no basemap) over base, a
// MapLibre style fetched from a -basemap URL: base's sources and layers
// first, then ours. When base has glyphs, MapLibre fetches every label's
// font from there, so our labels take the first font base's own labels use.
export function mergeStyle(base, ours) {
  const font = base.glyphs && base.layers?.find((l) => l.layout?.['text-font'])?.layout['text-font'];
  const layers = ours.layers.filter((l) => l.type !== 'background').map((l) => (
    font && l.type === 'symbol' ? { ...l, layout: { ...l.layout, 'text-font': font } } : l));
  return { ...base, sources: { ...base.sources, ...ours.sources }, layers: [...(base.layers ?? []), ...layers] };
}
