import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, when } from '../ui.js';

/** The projects the key reaches, and where the log and each projection stand (/_health). */
export function Overview({ projects }) {
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
