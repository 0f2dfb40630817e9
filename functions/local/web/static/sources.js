// The Sources list and the notice on the map. Each layer in view is listed
// with what the server says it is drawn from (the survey model, an official
// dataset, a fixture generated in an official format, or invented demo
// data) and its attribution, as its TileJSON gives it. While a layer drawn
// from invented or generated data is in view, the notice on the map says
// so: nobody should read a demo well or a fixture township as real.
import { drawnFrom, mapLayerIDs } from './style.js';

const KINDS = {
  model: 'model',
  official: 'official data',
  fixture: 'fixture',
  demo: 'demo, invented',
  none: 'no data loaded',
};

export function initSources(map, cfg) {
  const list = document.getElementById('source-list');
  const notice = document.getElementById('notice');

  const shown = (l) => map.getZoom() >= drawnFrom(l) &&
    mapLayerIDs(l).some((id) => map.getLayer(id) && map.getLayoutProperty(id, 'visibility') !== 'none');

  let pending = false;
  function update() {
    pending = false;
    const inView = cfg.layers.filter(shown);
    // One line per source: the groups and layers drawn from it.
    const bySource = new Map();
    for (const l of inView) {
      const key = `${l.source}\n${l.attribution ?? ''}`;
      if (!bySource.has(key)) bySource.set(key, { source: l.source, attribution: l.attribution, names: new Set() });
      bySource.get(key).names.add(l.kind === 'data' ? l.title : l.group);
    }
    list.replaceChildren();
    if (cfg.basemap?.kind && cfg.basemap.kind !== 'none') {
      list.append(item('Basemap', cfg.basemap.kind === 'offline' ? 'official' : cfg.basemap.kind, cfg.basemap.attribution ?? cfg.basemap.url,
        cfg.basemap.kind === 'offline' ? 'Natural Earth 1:50m: for orientation, about a kilometre off at street scale.' : ''));
    } else if (cfg.basemap?.note) {
      list.append(item('Basemap', 'none', cfg.basemap.note));
    }
    for (const s of bySource.values()) list.append(item([...s.names].join(', '), s.source, s.attribution));

    const demo = inView.filter((l) => l.source === 'demo').map((l) => l.title);
    const fixture = [...new Set(inView.filter((l) => l.source === 'fixture').map((l) => l.group))];
    const parts = [];
    if (demo.length) parts.push(`Demo data on the map (${demo.join(', ')}): invented by Meridian, not real wells, parcels, operators or holders.`);
    if (fixture.length) parts.push(`${fixture.join(', ')}: grid from fixture indexes, generated in the official formats, not the official survey.`);
    notice.textContent = parts.join(' ');
    notice.hidden = parts.length === 0;
  }
  const soon = () => {
    if (!pending) requestAnimationFrame(update);
    pending = true;
  };
  map.on('zoomend', soon);
  map.on('styledata', soon); // the style loaded, a layer shown or hidden
}

function item(names, source, attribution, note = '') {
  const li = document.createElement('li');
  const b = document.createElement('b');
  b.textContent = names;
  const tag = document.createElement('span');
  tag.className = `tag ${source}`;
  tag.textContent = KINDS[source] ?? source;
  li.append(b, tag);
  if (attribution) li.append(document.createElement('br'), attribution);
  if (note) {
    const small = document.createElement('div');
    small.className = 'muted';
    small.textContent = note;
    li.append(small);
  }
  return li;
}
