// The layer switcher: one collapsible row per group of the config (DLS by
// province, NTS, Ontario, then the energy and agriculture data built) whose
// checkbox shows or hides the whole group, and inside it one checkbox per
// layer: a survey grid's lines and labels, or a data archive (off at
// first), tagged when its data is invented (demo) or generated (fixture).
// A layer not drawn at the current zoom is greyed out.
import { drawnFrom, groupColours, mapLayerIDs } from './style.js';

export function initLayerList(map, layers, container) {
  const colours = groupColours(layers);
  const groups = new Map(); // name -> {box, rows: [{layer, box, label}]}
  for (const l of layers) {
    if (!groups.has(l.group)) groups.set(l.group, addGroup(container, l.group, colours.get(l.group)));
    const g = groups.get(l.group);
    const box = checkbox(l.kind !== 'data'); // data layers start hidden
    const label = document.createElement('label');
    label.title = `Drawn from zoom ${drawnFrom(l)}`;
    label.dataset.layer = l.id;
    label.append(box, l.title);
    if (l.source === 'demo' || l.source === 'fixture') {
      const tag = document.createElement('span');
      tag.className = `tag ${l.source}`;
      tag.textContent = l.source;
      tag.title = l.attribution ?? '';
      label.append(tag);
    }
    g.details.append(label);
    g.rows.push({ layer: l, box, label });
    box.addEventListener('change', () => {
      show(l, box.checked);
      syncGroupBox(g);
    });
  }
  for (const g of groups.values()) {
    syncGroupBox(g);
    g.box.addEventListener('change', () => {
      for (const r of g.rows) {
        r.box.checked = g.box.checked;
        show(r.layer, g.box.checked);
      }
    });
  }

  function show(l, visible) {
    for (const id of mapLayerIDs(l)) map.setLayoutProperty(id, 'visibility', visible ? 'visible' : 'none');
  }

  const grey = () => {
    const z = map.getZoom();
    for (const g of groups.values()) {
      for (const r of g.rows) r.label.classList.toggle('out-of-range', z < drawnFrom(r.layer));
    }
  };
  map.on('zoomend', grey);
  grey();
}

function checkbox(checked = true) {
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.checked = checked;
  return box;
}

function addGroup(container, name, colour) {
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  const box = checkbox();
  box.setAttribute('aria-label', `Show ${name}`);
  const swatch = document.createElement('span');
  swatch.className = 'swatch';
  swatch.style.background = colour;
  summary.append(box, swatch, name);
  details.append(summary);
  container.append(details);
  return { details, box, rows: [] };
}

// syncGroupBox makes a group's checkbox say whether all, none or some of
// its grids are shown.
function syncGroupBox(g) {
  const on = g.rows.filter((r) => r.box.checked).length;
  g.box.checked = on === g.rows.length;
  g.box.indeterminate = on > 0 && on < g.rows.length;
}
