// The local server's map page: the survey grids of /tiles drawn with
// MapLibre GL JS over a basemap, a layer switcher with each layer's source,
// a legal land description search, click-to-identify with the parcel's
// reports, and batch paste with downloads. Plain ES modules served from the
// binary; nothing is loaded from elsewhere unless the server was started
// with an online basemap (serve -basemap).
//
// The view is kept in the URL hash as #zoom/lat/lng, so a link such as
// /#11/51.07/-114.07 opens over NW-25-24-1-W5.
import { buildStyle, mergeStyle } from './style.js';
import { initLayerList } from './layers.js';
import { initSearch } from './search.js';
import { initIdentify } from './identify.js';
import { initBatch } from './batch.js';
import { initSources } from './sources.js';

const message = document.getElementById('message');

// show puts text in the panel's message line; '' hides it.
function show(text, kind = 'info') {
  message.textContent = text;
  message.className = kind;
  message.hidden = text === '';
}

// unavailable says why there is no map and hides the controls that need one.
function unavailable(text) {
  show(text, 'error');
  document.getElementById('search').hidden = true;
  document.getElementById('layers').hidden = true;
}

async function loadConfig() {
  const res = await fetch('/map/config.json');
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    throw new Error(body?.error?.message ?? `${res.status} ${res.statusText}`);
  }
  return body;
}

// apiClient calls the API with the page's key and turns its error bodies
// ({"error":{"code","message"}}) into Errors carrying the message.
function apiClient(key) {
  async function call(path, params = {}, body) {
    const url = new URL(path, location.origin);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const init = { headers: { 'X-API-Key': key } };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(url, init);
    const answer = await res.json().catch(() => null);
    if (!res.ok) {
      const err = new Error(answer?.error?.message ?? `${res.status} ${res.statusText}`);
      err.code = answer?.error?.code;
      throw err;
    }
    return answer;
  }
  return { get: (path, params) => call(path, params), post: (path, body) => call(path, {}, body) };
}

async function main() {
  let maplibregl;
  try {
    // MapLibre is not in the repository: `make web` copies it from npm into
    // static/vendor/ before the binary is built.
    maplibregl = await import('./vendor/maplibre-gl.mjs');
  } catch (err) {
    unavailable('MapLibre GL JS is not bundled in this build. Run `make web`, then rebuild and restart the server (`make run` does both).');
    console.warn('meridian: load MapLibre GL JS:', err);
    return;
  }
  let cfg;
  try {
    cfg = await loadConfig();
  } catch (err) {
    unavailable(`Map configuration: ${err.message}`);
    return;
  }
  let style = buildStyle(cfg, location.origin);
  if (cfg.basemap?.kind === 'style') {
    try {
      const res = await fetch(cfg.basemap.url);
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
      style = mergeStyle(await res.json(), style);
    } catch (err) {
      // Offline, or the style is gone: the grids still draw.
      show(`Basemap ${cfg.basemap.url}: ${err.message}; drawing the grids alone`, 'error');
    }
  } else if (cfg.basemap?.kind === 'none' && cfg.basemap.note) {
    console.warn('meridian: no basemap:', cfg.basemap.note);
  }
  const map = new maplibregl.Map({
    container: 'map',
    style,
    center: [-106, 53], // the prairies, unless the hash says otherwise
    zoom: 4,
    hash: true,
    // Collapsed to an (i) button: the sources are many and long, and the
    // Sources list in the panel gives them in full.
    attributionControl: { compact: true },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right');
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
  if (cfg.basemap?.kind === 'style' && cfg.basemap.attribution) {
    map.addControl(new maplibregl.AttributionControl({ customAttribution: cfg.basemap.attribution }));
  }
  // With a listener MapLibre no longer logs errors itself: keep them in the
  // console (the browser test fails on console errors) and show the first.
  let shown = false;
  map.on('error', (e) => {
    console.error('meridian: map:', e.error);
    if (!shown) show(`Map: ${e.error?.message ?? e.error}`, 'error');
    shown = true;
  });
  // 'idle' once everything in view is loaded and drawn: the browser test waits for it.
  map.on('idle', () => { document.body.dataset.map = 'idle'; });
  // Compact attribution opens expanded; start it folded to its (i) button
  // (the panel's Sources list gives every source in full).
  map.once('load', () => map.getContainer().querySelector('.maplibregl-compact-show')?.classList.remove('maplibregl-compact-show'));
  map.on('movestart', () => { document.body.dataset.map = 'moving'; });
  const api = apiClient(cfg.api_key);
  initLayerList(map, cfg.layers, document.getElementById('layer-list'));
  initSources(map, cfg);
  initSearch(map, api, show);
  initIdentify(map, api, show);
  initBatch(map, api, show);
  window.meridianMap = map; // for the browser test and the console
}

main();
