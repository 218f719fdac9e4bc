import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, when } from '../ui.js';

/** One list; a 403 (the key lacks the scope) is shown in place, the other lists still load. */
function List({ title, path, columns, row }) {
  const [items, setItems] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setItems(null);
    api(path).then((d) => setItems(d.results ?? d), setError);
  }, [path]);
  return html`<section>
    <h2>${title}</h2>
    <${ErrorNote} error=${error} />
    ${items &&
    html`<table>
      <thead><tr>${columns.map((c) => html`<th scope="col" key=${c}>${c}</th>`)}</tr></thead>
      <tbody>${items.map((i) => html`<tr key=${i.id}>${row(i).map((cell, n) => html`<td key=${n}>${cell}</td>`)}</tr>`)}</tbody>
    </table>`}
  </section>`;
}

const flagKey = (f) => (f && typeof f === 'object' ? f.key : null) ?? '—';

/** Surveys and early access features with their flags, and cohorts. */
export function Catalogue({ project }) {
  const base = `/api/projects/${project.id}`;
  return html`
    <h1>Surveys, features and cohorts</h1>
    <${List} title="Surveys" path=${`${base}/surveys/?limit=200`} columns=${['Name', 'Type', 'Linked flag', 'Targeting flag', 'Started']}
      row=${(s) => [s.name, s.type, flagKey(s.linked_flag), flagKey(s.targeting_flag), when(s.start_date)]} />
    <${List} title="Early access features" path=${`${base}/early_access_feature/?limit=200`} columns=${['Name', 'Stage', 'Flag']}
      row=${(f) => [f.name, f.stage, flagKey(f.feature_flag)]} />
    <${List} title="Cohorts" path=${`${base}/cohorts/?limit=200`} columns=${['Name', 'Static', 'Persons']}
      row=${(c) => [c.name, c.is_static ? 'yes' : 'no', c.count ?? '—']} />
  `;
}
