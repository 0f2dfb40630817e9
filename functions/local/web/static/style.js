// The MapLibre style of the map page, built from /map/config.json: a plain
// background (nothing is fetched from the internet), the agriculture and
// energy archives built so far (fills and points, hidden until chosen), then
// for each survey grid a line layer and, where the grid has one, a label
// layer, then the search result on top.
//
// Labels are ordinary symbol layers. The style has no "glyphs" URL, so
// MapLibre (5.11 and later) draws the text with the browser's own fonts
// instead of downloading glyph PBFs; that is all an offline page needs for
// short Latin descriptors such as "NW-25" or "A-2-F".

export const BACKGROUND = '#f5f3ee'; // also #map's background in app.css
export const RESULT = '#d6336c';

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

// mapLayerIDs returns the MapLibre layer ids drawn for config layer l.
export function mapLayerIDs(l) {
  if (l.kind === 'data') return [`${l.id}-data`];
  return l.label ? [`${l.id}-lines`, `${l.id}-labels`] : [`${l.id}-lines`];
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
  const sources = { result: { type: 'geojson', data: EMPTY } };
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
      { id: 'background', type: 'background', paint: { 'background-color': BACKGROUND } },
      ...data,
      ...lines,
      {
        id: 'result-fill', type: 'fill', source: 'result',
        paint: { 'fill-color': RESULT, 'fill-opacity': 0.2 },
      },
      {
        id: 'result-outline', type: 'line', source: 'result',
        paint: { 'line-color': RESULT, 'line-width': 2.5 },
      },
      {
        id: 'result-centroid', type: 'circle', source: 'result',
        filter: ['==', ['geometry-type'], 'Point'],
        paint: { 'circle-color': RESULT, 'circle-radius': 4, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 },
      },
      ...labels,
      ...dataLabels,
    ],
  };
}
