import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, canWrite, when } from '../ui.js';
import { ExportForm } from './export-form.js';

/** Batch exports: the list, and per export a timeline of runs by interval, its logs, pause/unpause and backfill. */
export function Exports({ project, scopes, exportId }) {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    setList(null);
    api(`/api/projects/${project.id}/batch_exports/?limit=200`).then((d) => setList(d.results), setError);
  }, [project.id]);
  if (exportId) return html`<${ExportPage} project=${project} id=${exportId} writable=${canWrite(scopes, 'batch_export')} />`;
  return html`
    <h1>Batch exports</h1>
    <${ErrorNote} error=${error} />
    ${canWrite(scopes, 'batch_export') &&
    (creating
      ? html`<${ExportForm} project=${project} onSaved=${(e) => { location.hash = `#/exports/${e.id}`; }} />`
      : html`<p><button type="button" onClick=${() => setCreating(true)}>New batch export</button></p>`)}
    ${list === null
      ? html`<p>Loading…</p>`
      : html`<table>
          <thead><tr><th scope="col">Name</th><th scope="col">Destination</th><th scope="col">Interval</th><th scope="col">State</th><th scope="col">Latest run</th></tr></thead>
          <tbody>${list.map(
            (e) => html`<tr key=${e.id}><td><a href=${`#/exports/${e.id}`}>${e.name}</a></td><td>${e.destination.type}</td><td>${e.interval}</td>
              <td>${e.paused ? 'paused' : 'running'}</td><td>${e.latest_runs?.[0] ? `${e.latest_runs[0].status} (${when(e.latest_runs[0].data_interval_start)})` : '—'}</td></tr>`,
          )}</tbody>
        </table>`}
  `;
}

function ExportPage({ project, id, writable }) {
  const base = `/api/projects/${project.id}/batch_exports/${encodeURIComponent(id)}`;
  const [exp, setExp] = useState(null);
  const [runs, setRuns] = useState([]);
  const [logs, setLogs] = useState([]);
  const [runFilter, setRunFilter] = useState(null);
  const [error, setError] = useState(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [editing, setEditing] = useState(false);
  const load = () =>
    Promise.all([api(`${base}/`), api(`${base}/runs/?limit=200`)]).then(([e, r]) => {
      setExp(e);
      setRuns(r.results);
    }, setError);
  useEffect(() => {
    load();
  }, [id]);
  useEffect(() => {
    api(runFilter ? `${base}/runs/${encodeURIComponent(runFilter)}/logs/?limit=100` : `${base}/logs/?limit=100`).then((d) => setLogs(d.results), setError);
  }, [id, runFilter]);
  const act = async (path, body) => {
    setError(null);
    try {
      await api(`${base}/${path}/`, { method: 'POST', body });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  if (!exp) return html`<${ErrorNote} error=${error} /><p>Loading…</p>`;
  const ordered = [...runs].sort((a, b) => a.data_interval_start.localeCompare(b.data_interval_start));
  return html`
    <h1>Batch export ${exp.name}</h1>
    <p>${exp.destination.type} · every ${exp.interval} · <strong>${exp.paused ? 'paused' : 'running'}</strong></p>
    ${writable &&
    (editing
      ? html`<${ExportForm} project=${project} existing=${exp} onSaved=${(e) => { setExp(e); setEditing(false); }} />`
      : html`<p><button type="button" onClick=${() => setEditing(true)}>Edit destination</button></p>`)}
    ${writable &&
    html`<p>
      ${exp.paused ? html`<button type="button" onClick=${() => act('unpause', {})}>Unpause</button>` : html`<button type="button" onClick=${() => act('pause')}>Pause</button>`}
    </p>
    <form class="row" aria-label="Backfill" onSubmit=${(e) => { e.preventDefault(); act('backfill', { start_at: new Date(from).toISOString(), end_at: new Date(to).toISOString() }); }}>
      <label>Backfill from <input type="datetime-local" required value=${from} onInput=${(e) => setFrom(e.target.value)} /></label>
      <label>to <input type="datetime-local" required value=${to} onInput=${(e) => setTo(e.target.value)} /></label>
      <button type="submit">Backfill</button>
    </form>`}
    <${ErrorNote} error=${error} />
    <h2>Runs by interval</h2>
    <ol class="timeline" aria-label="Runs by interval, oldest first">
      ${ordered.map(
        (r) => html`<li key=${r.id} class=${`run run-${r.status.toLowerCase()}`}>
          <button type="button" aria-pressed=${runFilter === r.id} onClick=${() => setRunFilter(runFilter === r.id ? null : r.id)}
            title=${`${r.status}: ${when(r.data_interval_start)} – ${when(r.data_interval_end)}`}>
            <span class="status">${r.status}</span> <span>${when(r.data_interval_start)}</span>
          </button>
        </li>`,
      )}
    </ol>
    ${ordered.length === 0 && html`<p>No runs yet.</p>`}
    <h2>${runFilter ? 'Logs of the selected run' : 'Logs'}</h2>
    <table class="logs">
      <thead><tr><th scope="col">Time</th><th scope="col">Level</th><th scope="col">Message</th></tr></thead>
      <tbody>${logs.map((l, i) => html`<tr key=${i}><td>${when(l.timestamp)}</td><td>${l.level}</td><td>${l.message}</td></tr>`)}</tbody>
    </table>
    <a href="#/exports">Back to batch exports</a>
  `;
}
