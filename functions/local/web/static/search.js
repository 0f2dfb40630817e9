// The search box. While the user types, /autocomplete/legal-location
// suggests descriptions near the map centre; on submit (or on picking a
// suggestion) /search/legal-location resolves the description, its polygon
// is drawn in the 'result' source and the map flies to it. Errors of the API
// ({"error":{"code","message"}}) are shown in the panel.
//
// document.body.dataset.search is 'busy', 'done' (the camera has arrived) or
// 'error': the browser test waits on it.
import { EMPTY } from './style.js';

const SUGGEST_DELAY_MS = 200;

export function initSearch(map, api, show) {
  const form = document.getElementById('search');
  const input = document.getElementById('search-input');
  const list = document.getElementById('suggestions');
  const details = document.getElementById('result');
  let suggestions = [];
  let active = -1;
  let timer = 0;
  let latest = 0; // number of the last autocomplete request; older answers are dropped

  const call = api.get;

  function close() {
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute('aria-expanded', 'false');
    suggestions = [];
    active = -1;
  }

  function highlight(i) {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
  }

  async function suggest() {
    const text = input.value.trim();
    if (text.length < 2) return close();
    const n = ++latest;
    const c = map.getCenter();
    let fc;
    try {
      fc = await call('/autocomplete/legal-location', {
        location: text, limit: 6, proximity: `${c.lng.toFixed(5)},${c.lat.toFixed(5)}`,
      });
    } catch (err) {
      if (n === latest) show(`Suggestions: ${err.message}`, 'error');
      return;
    }
    if (n !== latest) return;
    show('');
    close();
    suggestions = fc.features ?? [];
    for (const [i, f] of suggestions.entries()) {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      const note = document.createElement('small');
      note.textContent = [f.properties.unit, f.properties.province].filter(Boolean).join(', ');
      li.append(f.properties.legal_location, note);
      // mousedown, not click: it comes before the input loses focus.
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(i); });
      list.append(li);
    }
    list.hidden = suggestions.length === 0;
    input.setAttribute('aria-expanded', String(!list.hidden));
  }

  function pick(i) {
    input.value = suggestions[i].properties.legal_location;
    search(input.value);
  }

  async function search(text) {
    clearTimeout(timer);
    latest++;
    close();
    document.body.dataset.search = 'busy';
    let fc;
    try {
      fc = await call('/search/legal-location', { location: text.trim() });
    } catch (err) {
      clear();
      document.body.dataset.search = 'error';
      show(err.message, 'error');
      return;
    }
    const features = fc.features ?? [];
    const shape = features.find((f) => /Polygon$/.test(f.geometry?.type ?? ''));
    const centroid = features.find((f) => f.geometry?.type === 'Point');
    if (!shape && !centroid) {
      clear();
      document.body.dataset.search = 'error';
      show(`Nothing found for ${text}`, 'error');
      return;
    }
    show('');
    map.getSource('result').setData(fc);
    describe((shape ?? centroid).properties, centroid);
    map.once('moveend', () => { document.body.dataset.search = 'done'; });
    const [x, y] = centroid?.geometry.coordinates ?? [];
    map.fitBounds(shape ? bounds([shape]) : [[x, y], [x, y]], { padding: padding(map), maxZoom: shape ? 16 : 14 });
  }

  // clear removes the last result from the map and the panel.
  function clear() {
    map.getSource('result').setData(EMPTY);
    details.hidden = true;
  }

  function describe(p, centroid) {
    const rows = [
      ['Location', p.legal_location],
      ['Unit', p.unit],
      ['System', p.survey_system],
      ['Province', p.province],
      ['Centroid', centroid && centroid.geometry.coordinates.slice().reverse().map((v) => v.toFixed(6)).join(', ')],
      ['Accuracy', p.accuracy_m != null && `± ${p.accuracy_m} m`],
      ['Source', p.source],
    ];
    details.replaceChildren();
    for (const [name, value] of rows) {
      if (!value) continue;
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = name;
      dd.textContent = value;
      details.append(dt, dd);
    }
    details.hidden = false;
    document.getElementById('identify').hidden = true;
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(suggest, SUGGEST_DELAY_MS);
  });
  input.addEventListener('keydown', (e) => {
    if (list.hidden) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      highlight((active + step + suggestions.length) % suggestions.length);
    } else if (e.key === 'Enter' && active >= 0) {
      e.preventDefault();
      pick(active);
    } else if (e.key === 'Escape') {
      close();
    }
  });
  input.addEventListener('blur', close);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    search(input.value);
  });
  // Emptying the box clears the result.
  input.addEventListener('search', () => {
    if (input.value !== '') return;
    clear();
    show('');
  });
}

// padding leaves room for the panel when the map is wide enough for both.
export function padding(map) {
  const panel = document.getElementById('panel').getBoundingClientRect();
  const wide = map.getContainer().clientWidth > 2 * panel.width;
  return { top: 40, bottom: 40, right: 40, left: wide ? panel.right + 40 : 40 };
}

// bounds returns [[west, south], [east, north]] of features (Points,
// Polygons and MultiPolygons).
export function bounds(features) {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of features) {
    const g = f.geometry;
    const pts = g.type === 'Point' ? [g.coordinates] : g.type === 'Polygon' ? g.coordinates.flat() : g.coordinates.flat(2);
    for (const [x, y] of pts) {
      w = Math.min(w, x); e = Math.max(e, x);
      s = Math.min(s, y); n = Math.max(n, y);
    }
  }
  return [[w, s], [e, n]];
}
