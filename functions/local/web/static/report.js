// A parcel's agriculture or energy report, rendered in the panel: the key
// sections as short rows and tables, what is unavailable and why, and every
// source with its date. When any section comes from Meridian's invented
// demo data the report opens with a banner saying so.
//
// document.body.dataset.report is 'busy', 'done' or 'error': the browser
// test waits on it.
import { copyButton } from './identify.js';

const TITLES = { ag: 'Agriculture report', energy: 'Energy report' };
const MAX_ROWS = 10;

export async function showReport(api, kind, legal) {
  const section = document.getElementById('report');
  document.body.dataset.report = 'busy';
  section.replaceChildren(heading(`${TITLES[kind]}: ${legal}`, section));
  section.append(text('p', 'Loading…', 'muted'));
  section.hidden = false;
  let r;
  try {
    r = await api.get(`/${kind}/report`, { legal_location: legal });
  } catch (err) {
    section.replaceChildren(heading(`${TITLES[kind]}: ${legal}`, section), text('p', err.message, 'muted'));
    document.body.dataset.report = 'error';
    return;
  }
  section.replaceChildren(heading(`${TITLES[kind]}: ${r.resolved_legal_location ?? r.legal_location}`, section));
  const sources = Object.entries(r.meta?.sources ?? {});
  if (sources.some(([, s]) => s.demo)) {
    section.append(text('p', 'Demo data: invented by Meridian in the published formats. Not real land, wells, operators or holders.', 'demo-banner'));
  }
  (kind === 'ag' ? agReport : energyReport)(section, r);
  if (kind === 'energy') await recentChanges(api, section, r.resolved_legal_location ?? legal);
  const missing = r.meta?.unavailable ?? [];
  if (missing.length) {
    section.append(text('h3', 'Not available'));
    section.append(rows(missing.map((u) => [u.section, u.reason.replaceAll('_', ' ')])));
  }
  section.append(text('h3', 'Sources'));
  section.append(rows(sources.map(([name, s]) => [name, `${s.name}${s.as_of ? ` (${s.as_of})` : ''}`])));
  const link = document.createElement('p');
  link.className = 'muted';
  link.append(`GET /${kind}/report?legal_location=${legal}`, copyButton(`/${kind}/report?legal_location=${encodeURIComponent(legal)}`));
  section.append(link);
  document.body.dataset.report = 'done';
}

function agReport(section, r) {
  const p = r.productivity ?? {};
  const score = (x) => x && `${x.score}, class ${x.class}${x.limiter ? ` (${x.limiter})` : ''}`;
  const top = r.land_use?.breakdown?.[0];
  const water = (w) => w && `${w.name ?? 'unnamed'}, ${w.distance_m} m${w.is_on_parcel ? ', on the parcel' : ''}`;
  section.append(rows([
    ['Parcel', r.parcel && `${r.parcel.area_ha} ha, ${r.grain?.replaceAll('_', ' ')}, ${r.province}`],
    ['LSRS', score(p.lsrs)],
    ['CLI', score(p.cli)],
    ['Main crop', r.cropping?.dominant && `${r.cropping.dominant.name} (${r.cropping.dominant.category})`],
    ['Rotation', r.cropping?.rotation],
    ['Soil', r.soil?.classification && [r.soil.classification.subgroup_code ?? r.soil.classification.great_group, r.soil.soil_name].filter(Boolean).join(', ')],
    ['Drainage, slope', r.soil && [r.soil.drainage_class, r.soil.slope_class].filter(Boolean).join(', ')],
    ['Land use', top && `${top.label} ${top.pct}%${r.land_use.year ? ` (${r.land_use.year})` : ''}`],
    ['Drought', r.drought && `${r.drought.class} ${r.drought.severity_label ?? ''} (${r.drought.as_of})`],
    ['Wetlands', r.wetlands && `${r.wetlands.count}${r.wetlands.on_parcel ? `, ${r.wetlands.on_parcel_pct}% of the parcel` : ', none on the parcel'}`],
    ['Watercourse', water(r.hydrology?.watercourse)],
    ['Water body', water(r.hydrology?.water_body)],
    ['Municipality', r.parcel_context?.municipality && `${r.parcel_context.municipality.name} (${r.parcel_context.municipality.type})`],
  ]));
}

function energyReport(section, r) {
  const s = r.summary ?? {};
  const w = s.wells;
  const op = s.operators?.dominant;
  const prod = r.production;
  const vol = prod?.volumes;
  section.append(rows([
    ['Parcel', r.parcel && `${r.parcel.area_ha} ha, ${r.province}`],
    ['Wells', w && `${w.total}: ${w.active} active, ${w.suspended} suspended, ${w.abandoned} abandoned, ${w.orphan} orphan`],
    ['Main operator', op && `${op.name} (${op.well_share_pct}% of wells)`],
    ['Production', prod && vol && `${prod.window_months} months to ${prod.last_producing_month ?? '-'}: oil ${vol.oil_m3} m³, gas ${vol.gas_e3m3} e³m³, water ${vol.water_m3} m³`],
    ['Pipelines', s.pipelines && `${s.pipelines.segment_count} segments, ${s.pipelines.length_m_on_parcel} m on the parcel`],
    ['Facilities', s.facilities && `${s.facilities.count}${s.facilities.categories?.length ? `: ${s.facilities.categories.join(', ')}` : ''}`],
    ['Last activity', s.last_activity_date],
  ]));
  table(section, 'Wells', r.wells, ['UWI', 'Name', 'Status', 'Fluid', 'Operator'],
    (x) => [x.uwi, x.well_name, x.status, x.fluid, x.operator?.name]);
  table(section, 'Tenure', r.tenure, ['Disposition', 'Type', 'Holder', 'Expires'],
    (x) => [x.disposition_number, x.disposition_type_raw ?? x.disposition_type, x.holder?.name, x.expiry_date]);
  table(section, 'Pipelines', r.pipelines, ['Licence', 'Substance', 'Status', 'Operator'],
    (x) => [`${x.licence_number}-${x.segment_line_number}`, x.substance, x.status, x.operator?.name]);
  table(section, 'Facilities', r.facilities, ['Name', 'Category', 'Status', 'Operator'],
    (x) => [x.facility_name ?? x.id, [x.category, x.sub_type].filter(Boolean).join(', '), x.status, x.operator?.name]);
}

// recentChanges adds what changed on the LSD between versions of the
// energy data (GET /energy/changes), newest first: a well licensed, its
// status or operator changed, a disposition transferred or expired...
async function recentChanges(api, section, lsd) {
  section.append(text('h3', 'Recent changes'));
  let c;
  try {
    c = await api.get('/energy/changes', { legal_location: lsd, per_page: MAX_ROWS });
  } catch (err) {
    section.append(text('p', `Changes unavailable: ${err.message}`, 'muted'));
    return;
  }
  if (!c.rows?.length) {
    section.append(text('p', 'No changes recorded since the energy data was first loaded here.', 'muted'));
    return;
  }
  const fields = (o) => (o ? Object.entries(o).map(([k, v]) => `${k.replaceAll('_', ' ')}: ${v}`).join(', ') : '');
  const t = document.createElement('table');
  const tr = document.createElement('tr');
  for (const h of ['As of', 'Change', 'Entity', 'Before', 'After']) tr.append(text('th', h));
  t.append(tr);
  for (const x of c.rows) {
    const row = document.createElement('tr');
    for (const v of [x.as_of, x.kind.replaceAll('_', ' '), `${x.entity_type} ${x.entity_id}`, fields(x.before), fields(x.after)]) row.append(text('td', v));
    t.append(row);
  }
  section.append(t);
  if (c.meta?.next_cursor) section.append(text('p', `More: GET /energy/changes?legal_location=${lsd}`, 'muted'));
}

// table adds a list section ({total, rows}) as a table of its first rows.
function table(section, title, list, head, cells) {
  if (!list?.rows?.length) return;
  const shown = list.rows.slice(0, MAX_ROWS);
  section.append(text('h3', `${title} (${list.total})`));
  const t = document.createElement('table');
  const tr = document.createElement('tr');
  for (const h of head) tr.append(text('th', h));
  t.append(tr);
  for (const x of shown) {
    const row = document.createElement('tr');
    for (const c of cells(x)) row.append(text('td', c ?? ''));
    t.append(row);
  }
  section.append(t);
  if (list.total > shown.length) section.append(text('p', `${list.total - shown.length} more: ${list.more}`, 'muted'));
}

// rows is a two-column table of [name, value] pairs, leaving out empty values.
function rows(pairs) {
  const t = document.createElement('table');
  for (const [name, value] of pairs) {
    if (value == null || value === '') continue;
    const tr = document.createElement('tr');
    tr.append(text('td', name), text('td', String(value)));
    t.append(tr);
  }
  return t;
}

function heading(title, section) {
  const h = text('h2', title);
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'copy';
  close.textContent = 'close';
  close.addEventListener('click', () => { section.hidden = true; });
  h.append(close);
  return h;
}

function text(tag, value, className) {
  const e = document.createElement(tag);
  e.textContent = value;
  if (className) e.className = className;
  return e;
}
