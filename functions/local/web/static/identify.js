// Click to identify. A click (or tap) on the map asks
// /search/coordinates?unit=all for every block containing the point and
// /map/nad27 for the point on NAD27, then lists each block's description
// with a copy button, the point in decimal degrees and in degrees, minutes
// and seconds on both datums, where the blocks come from, and buttons that
// open the quarter's agriculture report and the LSD's energy report in the
// panel (report.js). The finest block is drawn as the result.
//
// document.body.dataset.identify is 'busy', 'done' or 'error': the browser
// test waits on it.
import { showReport } from './report.js';

// Report buttons: which unit each report takes, and where it is published.
const REPORTS = [
  { kind: 'ag', unit: 'Quarter Section', label: 'Agriculture report', provinces: ['Alberta', 'Saskatchewan', 'Manitoba', 'British Columbia'] },
  { kind: 'energy', unit: 'LSD', label: 'Energy report', provinces: ['Alberta', 'Saskatchewan', 'Manitoba'] },
];

export function initIdentify(map, api, show) {
  const section = document.getElementById('identify');
  let latest = 0;

  map.on('click', async (e) => {
    const n = ++latest;
    const { lng, lat } = e.lngLat.wrap();
    const where = `${lng.toFixed(6)},${lat.toFixed(6)}`;
    document.body.dataset.identify = 'busy';
    const [blocks, nad27] = await Promise.allSettled([
      api.get('/search/coordinates', { location: where, unit: 'all' }),
      api.get('/map/nad27', { location: where }),
    ]);
    if (n !== latest) return; // a later click won
    show('');
    section.replaceChildren();
    const title = document.createElement('h2');
    title.textContent = 'Land at this point';
    section.append(title);

    const polygons = blocks.status === 'fulfilled'
      ? blocks.value.features.filter((f) => /Polygon$/.test(f.geometry?.type ?? ''))
      : [];
    const table = document.createElement('table');
    for (const f of polygons) {
      const p = f.properties;
      table.append(row(p.unit, p.legal_location, p.legal_location));
    }
    if (blocks.status === 'rejected') {
      const p = document.createElement('p');
      p.className = 'muted';
      p.textContent = blocks.reason.message;
      section.append(p);
    }
    table.append(row('NAD83', `${lat.toFixed(6)}, ${lng.toFixed(6)}`, `${lat.toFixed(6)}, ${lng.toFixed(6)}`));
    table.append(row('', dms(lat, lng), dms(lat, lng)));
    if (nad27.status === 'fulfilled') {
      const q = nad27.value;
      table.append(row('NAD27', `${q.lat.toFixed(6)}, ${q.lng.toFixed(6)}`, `${q.lat.toFixed(6)}, ${q.lng.toFixed(6)}`));
      table.append(row('', dms(q.lat, q.lng), dms(q.lat, q.lng)));
    } else {
      table.append(row('NAD27', nad27.reason.message));
    }
    section.append(table);

    const finest = polygons.at(-1);
    if (finest) {
      const p = finest.properties;
      const note = document.createElement('p');
      note.className = 'muted';
      note.textContent = `${p.legal_location}: ${p.source}, ± ${p.accuracy_m} m (${p.datum}). NAD27 by NRCan's NTv1 grid, ± ${nad27.value?.accuracy_m ?? 2} m.`;
      section.append(note);
      map.getSource('result').setData({ type: 'FeatureCollection', features: [finest] });
      const buttons = document.createElement('div');
      buttons.className = 'buttons';
      for (const r of REPORTS) {
        const f = polygons.find((g) => g.properties.unit === r.unit && g.properties.survey_system === 'DLS');
        if (!f || !r.provinces.includes(f.properties.province)) continue;
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.report = r.kind;
        b.textContent = `${r.label}: ${f.properties.legal_location}`;
        b.addEventListener('click', () => showReport(api, r.kind, f.properties.legal_location));
        buttons.append(b);
      }
      if (buttons.children.length) section.append(buttons);
    } else {
      map.getSource('result').setData({ type: 'FeatureCollection', features: [] });
    }
    section.hidden = false;
    document.getElementById('result').hidden = true;
    document.body.dataset.identify = blocks.status === 'fulfilled' ? 'done' : 'error';
  });
}

// row is a table row: a name, a value and, when copy is given, a button
// that copies it.
function row(name, value, copy) {
  const tr = document.createElement('tr');
  const th = document.createElement('td');
  th.textContent = name;
  const td = document.createElement('td');
  const span = document.createElement('span');
  span.textContent = value;
  td.append(span);
  if (copy) td.append(copyButton(copy));
  tr.append(th, td);
  return tr;
}

export function copyButton(text) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'copy';
  b.textContent = 'copy';
  b.title = `Copy ${text}`;
  b.dataset.copy = text;
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Pages over plain HTTP on another name than localhost have no
      // clipboard API: copy through a selection instead.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    b.classList.add('done');
    b.textContent = 'copied';
    setTimeout(() => { b.classList.remove('done'); b.textContent = 'copy'; }, 1500);
  });
  return b;
}

// dms writes a point as degrees, minutes and seconds: 51°04'12.00"N 114°04'12.00"W.
export function dms(lat, lng) {
  const part = (v, pos, neg) => {
    const h = v < 0 ? neg : pos;
    let s = Math.round(Math.abs(v) * 360000) / 100; // hundredths of a second
    const d = Math.floor(s / 3600);
    s -= d * 3600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    return `${d}°${String(m).padStart(2, '0')}'${s.toFixed(2).padStart(5, '0')}"${h}`;
  };
  return `${part(lat, 'N', 'S')} ${part(lng, 'E', 'W')}`;
}
