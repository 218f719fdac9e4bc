import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api } from '../api.js';
import { html, ErrorNote, when } from '../ui.js';

/** The projects the key reaches, and where the log and each projection stand (/_health). */
const HOURS = 3;

/** Events per minute over the last hours, counted from the events API (at most 5,000 events). */
function EventsPerMinute({ project }) {
  const ref = useRef(null);
  const [note, setNote] = useState('Loading…');
  useEffect(() => {
    let plot = null;
    let stopped = false;
    (async () => {
      const since = Date.now() - HOURS * 3_600_000;
      let path = `/api/projects/${project.id}/events/?limit=1000&after=${encodeURIComponent(new Date(since).toISOString())}`;
      const times = [];
      for (let page = 0; path && page < 5; page++) {
        const d = await api(path);
        for (const e of d.results) times.push(Date.parse(e.timestamp));
        path = d.next ? new URL(d.next, location.href).pathname + new URL(d.next, location.href).search : null;
      }
      if (stopped) return;
      const start = Math.floor(since / 60_000);
      const minutes = Array.from({ length: HOURS * 60 + 1 }, (_, i) => (start + i) * 60);
      const counts = minutes.map(() => 0);
      for (const t of times) {
        const i = Math.floor(t / 60_000) - start;
        if (i >= 0 && i < counts.length) counts[i]++;
      }
      setNote(`${times.length}${path ? '+' : ''} events in the last ${HOURS} hours.`);
      plot = new uPlot(
        { width: 640, height: 200, legend: { show: false }, series: [{}, { label: 'events', stroke: '#0b4fa8', fill: 'rgba(11,79,168,0.1)' }], axes: [{}, { label: 'events / minute' }] },
        [minutes, counts],
        ref.current,
      );
    })().catch((err) => setNote(err.message));
    return () => {
      stopped = true;
      plot?.destroy();
    };
  }, [project.id]);
  return html`<figure><div ref=${ref} role="img" aria-label=${`Events per minute in project ${project.name}`}></div><figcaption>${note}</figcaption></figure>`;
}

/** Export runs that failed among each export's latest runs. */
function FailedRuns({ project }) {
  const [runs, setRuns] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/batch_exports/?limit=200`).then(
      (d) => setRuns(d.results.flatMap((e) => (e.latest_runs ?? []).filter((r) => r.status.startsWith('Failed')).map((r) => ({ ...r, exportName: e.name, exportId: e.id })))),
      () => setRuns(null),
    );
  }, [project.id]);
  if (runs === null) return html`<p>Export runs are not readable with this key.</p>`;
  if (!runs.length) return html`<p>No recently failed export runs.</p>`;
  return html`<ul>${runs.map((r) => html`<li key=${r.id}><a href=${`#/exports/${r.exportId}`}>${r.exportName}</a>: ${r.status} for ${when(r.data_interval_start)}${r.latest_error ? ` (${r.latest_error})` : ''}</li>`)}</ul>`;
}

export function Overview({ projects, project }) {
  const [health, setHealth] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    // /_health answers 503 with the same body when degraded: read the body either way.
    fetch('/_health', { credentials: 'omit' })
      .then((r) => r.json())
      .then(setHealth, setError);
  }, []);
  const head = health?.log_head ?? null;
  return html`
    <h1>Overview</h1>
    <section aria-labelledby="projects-h">
      <h2 id="projects-h">Projects this key reaches</h2>
      <table>
        <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Project API key</th><th scope="col">Created</th></tr></thead>
        <tbody>
          ${projects.map((p) => html`<tr key=${p.id}><td>${p.id}</td><td>${p.name}</td><td><code>${p.api_token}</code></td><td>${when(p.created_at)}</td></tr>`)}
        </tbody>
      </table>
    </section>
    ${project &&
    html`<section aria-labelledby="activity-h">
      <h2 id="activity-h">${project.name}: events per minute</h2>
      <${EventsPerMinute} project=${project} />
      <h2>Failed export runs</h2>
      <${FailedRuns} project=${project} />
    </section>`}
    <section aria-labelledby="health-h">
      <h2 id="health-h">Service health</h2>
      <${ErrorNote} error=${error} />
      ${health &&
      html`
        <p>Status: <strong class=${`status-${health.status}`}>${health.status}</strong> · storage ${health.storage?.status} · log head ${head ?? '—'} ·
          quarantined events ${health.quarantined?.count ?? 0}</p>
        <table>
          <thead><tr><th scope="col">Projection</th><th scope="col">Position</th><th scope="col">Lag (events)</th><th scope="col">State</th></tr></thead>
          <tbody>
            ${Object.entries(health.projections ?? {}).map(([name, position]) => {
              const pos = typeof position === 'number' ? position : null;
              const failed = health.failures?.[name];
              return html`<tr key=${name}><td>${name}</td><td>${pos ?? JSON.stringify(position)}</td><td>${head !== null && pos !== null ? Math.max(0, head - pos) : '—'}</td>
                <td>${failed ? `stopped: ${typeof failed === 'string' ? failed : JSON.stringify(failed)}` : health.rebuilds?.[name] ? 'rebuilding' : 'running'}</td></tr>`;
            })}
          </tbody>
        </table>`}
    </section>
  `;
}
