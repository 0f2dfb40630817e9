// Batch paste. Each line of the box is a legal land description or a
// coordinate pair; descriptions go to POST /batch/legal-location and pairs
// to POST /batch/coordinates, 100 to a request. The blocks found are drawn
// (the 'batch' source) and the map fits them; the lines the API refused are
// listed with its message; the whole result downloads as GeoJSON, KML or
// CSV, one record per input line, in input order.
//
// document.body.dataset.batch is 'busy', 'done' or 'error': the browser
// test waits on it.
import { EMPTY } from './style.js';
import { bounds, padding } from './search.js';

const PER_REQUEST = 100; // the API's batch limit

export function initBatch(map, api, show) {
  const input = document.getElementById('batch-input');
  const summary = document.getElementById('batch-summary');
  const errorList = document.getElementById('batch-errors');
  const downloads = document.getElementById('batch-downloads');
  let records = []; // one per input line: {line, input, features, error}

  document.getElementById('batch-run').addEventListener('click', async () => {
    document.body.dataset.batch = 'busy';
    const lines = input.value.split(/\r?\n/).map((text, i) => ({ line: i + 1, input: text.trim() })).filter((l) => l.input);
    if (lines.length === 0) {
      report([], 'Paste one description or coordinate pair a line.');
      document.body.dataset.batch = 'error';
      return;
    }
    try {
      records = await convert(api, lines);
    } catch (err) {
      records = [];
      report([], `Batch: ${err.message}`);
      document.body.dataset.batch = 'error';
      return;
    }
    const features = records.flatMap((r) => r.features);
    map.getSource('batch').setData({ type: 'FeatureCollection', features });
    const failed = records.filter((r) => r.error);
    report(failed, `${records.length - failed.length} of ${records.length} lines mapped${failed.length ? `; ${failed.length} not converted:` : '.'}`);
    downloads.hidden = records.length === failed.length;
    show('');
    if (features.length) {
      map.once('moveend', () => { document.body.dataset.batch = 'done'; });
      map.fitBounds(bounds(features), { padding: padding(map), maxZoom: 14, duration: 600 });
    } else {
      document.body.dataset.batch = 'done';
    }
  });

  document.getElementById('batch-clear').addEventListener('click', () => {
    input.value = '';
    records = [];
    map.getSource('batch').setData(EMPTY);
    report([], '');
    downloads.hidden = true;
  });

  downloads.addEventListener('click', (e) => {
    const format = e.target.dataset?.format;
    if (!format) return;
    const [body, type] = {
      geojson: () => [JSON.stringify(toGeoJSON(records), null, 1), 'application/geo+json'],
      kml: () => [toKML(records), 'application/vnd.google-earth.kml+xml'],
      csv: () => [toCSV(records), 'text/csv'],
    }[format]();
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([body], { type }));
    a.download = `meridian-batch.${format}`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  });

  function report(failed, text) {
    summary.textContent = text;
    summary.hidden = text === '';
    errorList.replaceChildren();
    for (const r of failed) {
      const li = document.createElement('li');
      li.textContent = `line ${r.line}: ${r.input} — ${r.error.message}`;
      errorList.append(li);
    }
    errorList.hidden = failed.length === 0;
  }
}

// pair reads a coordinate pair, in either order: the one of the two that
// cannot be a latitude is the longitude; otherwise, as Canada lies west and
// north, the negative one is. null when text is not two numbers.
export function pair(text) {
  const m = /^\s*([-+]?\d+(?:\.\d+)?)\s*[,;\s]\s*([-+]?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return null;
  const [a, b] = [Number(m[1]), Number(m[2])];
  if (Math.abs(a) > 90 && Math.abs(b) <= 90) return [a, b];
  if (Math.abs(b) > 90 && Math.abs(a) <= 90) return [b, a];
  return a < 0 && b >= 0 ? [a, b] : b < 0 && a >= 0 ? [b, a] : [a, b];
}

// convert sends the lines in batches and returns one record per line.
async function convert(api, lines) {
  const records = lines.map((l) => ({ ...l, features: [], error: null }));
  const coords = records.filter((r) => pair(r.input));
  const descriptions = records.filter((r) => !pair(r.input));
  for (let i = 0; i < descriptions.length; i += PER_REQUEST) {
    const chunk = descriptions.slice(i, i + PER_REQUEST);
    assign(chunk, await api.post('/batch/legal-location', chunk.map((r) => r.input)));
  }
  for (let i = 0; i < coords.length; i += PER_REQUEST) {
    const chunk = coords.slice(i, i + PER_REQUEST);
    assign(chunk, await api.post('/batch/coordinates', { coordinates: chunk.map((r) => pair(r.input)) }));
  }
  return records;
}

// assign hands a batch answer's features and errors to the records sent:
// errors name their index; the features of the others come in order, each
// result a block and its centre point, the point last.
function assign(chunk, fc) {
  for (const e of fc.errors ?? []) chunk[e.index].error = { code: e.code, message: e.message };
  const ok = chunk.filter((r) => !r.error);
  let i = 0;
  for (const f of fc.features ?? []) {
    if (i >= ok.length) break;
    f.properties = { ...f.properties, line: ok[i].line, input: ok[i].input };
    ok[i].features.push(f);
    if (f.properties.shape === 'centroid') i++;
  }
}

export function toGeoJSON(records) {
  return {
    type: 'FeatureCollection',
    features: records.flatMap((r) => r.features),
    errors: records.filter((r) => r.error).map((r) => ({ line: r.line, input: r.input, ...r.error })),
  };
}

const CSV_COLUMNS = ['line', 'input', 'legal_location', 'unit', 'survey_system', 'province', 'lat', 'lng', 'accuracy_m', 'source', 'datum', 'error_code', 'error_message'];

export function toCSV(records) {
  const cell = (v) => {
    const s = v == null ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const out = [CSV_COLUMNS.join(',')];
  for (const r of records) {
    const c = r.features.find((f) => f.geometry?.type === 'Point');
    const p = (c ?? r.features[0])?.properties ?? {};
    const [lng, lat] = c?.geometry.coordinates ?? [];
    out.push([r.line, r.input, p.legal_location, p.unit, p.survey_system, p.province, lat, lng, p.accuracy_m, p.source, p.datum,
      r.error?.code, r.error?.message].map(cell).join(','));
  }
  return out.join('\r\n') + '\r\n';
}

export function toKML(records) {
  const esc = (s) => String(s ?? '').replace(/[<>&'"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' }[ch]));
  const coords = (ring) => ring.map(([x, y]) => `${x},${y}`).join(' ');
  const polygon = (rings) => `<Polygon><outerBoundaryIs><LinearRing><coordinates>${coords(rings[0])}</coordinates></LinearRing></outerBoundaryIs>${
    rings.slice(1).map((r) => `<innerBoundaryIs><LinearRing><coordinates>${coords(r)}</coordinates></LinearRing></innerBoundaryIs>`).join('')}</Polygon>`;
  const geometry = (g) => ({
    Point: () => `<Point><coordinates>${g.coordinates[0]},${g.coordinates[1]}</coordinates></Point>`,
    Polygon: () => polygon(g.coordinates),
    MultiPolygon: () => g.coordinates.map(polygon).join(''),
  }[g.type]?.() ?? '');
  const placemarks = records.filter((r) => r.features.length).map((r) => {
    const p = r.features[0].properties;
    return `<Placemark><name>${esc(p.legal_location)}</name><description>${esc(`line ${r.line}: ${r.input}; ${p.unit}, ${p.survey_system}, ${p.province}; ${p.source}, ± ${p.accuracy_m} m`)}</description>` +
      `<MultiGeometry>${r.features.map((f) => geometry(f.geometry)).join('')}</MultiGeometry></Placemark>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Meridian batch</name>\n${placemarks.join('\n')}\n</Document></kml>\n`;
}
