// The local server's map page: the survey grids of /tiles drawn with
// MapLibre GL JS, a layer switcher and a legal land description search.
// Plain ES modules served from the binary; nothing is loaded from elsewhere.
//
// The view is kept in the URL hash as #zoom/lat/lng, so a link such as
// /#11/51.07/-114.07 opens over NW-25-24-1-W5.
import { buildStyle } from './style.js';
import { initLayerList } from './layers.js';
import { initSearch } from './search.js';

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
  const map = new maplibregl.Map({
    container: 'map',
    style: buildStyle(cfg, location.origin),
    center: [-106, 53], // the prairies, unless the hash says otherwise
    zoom: 4,
    hash: true,
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'bottom-right');
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
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
  map.on('movestart', () => { document.body.dataset.map = 'moving'; });
  initLayerList(map, cfg.layers, document.getElementById('layer-list'));
  initSearch(map, cfg.api_key, show);
  window.meridianMap = map; // for the browser test and the console
}

main();
