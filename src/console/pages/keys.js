import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, canWrite, when } from '../ui.js';

/** A few bundles of PostHog's scopes, so an invite does not mean ticking twenty boxes. */
const PRESETS = {
  'Read everything': ['project:read', 'feature_flag:read', 'experiment:read', 'batch_export:read', 'person:read', 'cohort:read', 'survey:read', 'early_access_feature:read', 'user:read', 'organization:read'],
  'Feature flags (read and write)': ['project:read', 'feature_flag:write', 'user:read'],
  'Everything (*)': ['*'],
};

/** Projects (create, rename) and the key's user's personal API keys (create, roll, revoke). */
export function Keys({ projects, scopes, reloadProjects }) {
  const [keys, setKeys] = useState(null);
  const [error, setError] = useState(null);
  const [shown, setShown] = useState(null);
  const load = () => api('/api/personal_api_keys/').then(setKeys, setError);
  useEffect(() => {
    load();
  }, []);
  const keyWritable = canWrite(scopes, 'personal_api_key');
  const projectWritable = canWrite(scopes, 'project');

  const act = async (fn) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    }
  };
  const roll = (k) => act(async () => setShown(await api(`/api/personal_api_keys/${encodeURIComponent(k.id)}/roll/`, { method: 'POST' })).then(load));
  const revoke = (k) => act(async () => {
    await api(`/api/personal_api_keys/${encodeURIComponent(k.id)}/`, { method: 'DELETE' });
    setShown(null);
    await load();
  });

  return html`
    <h1>Projects and keys</h1>
    <${ErrorNote} error=${error} />
    <section aria-labelledby="projects-h">
      <h2 id="projects-h">Projects</h2>
      <ul class="plain">${projects.map((p) => html`<li key=${p.id}><${ProjectRow} project=${p} writable=${projectWritable} reload=${reloadProjects} /></li>`)}</ul>
      ${projectWritable && html`<${NewProject} reload=${reloadProjects} />`}
    </section>
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">Personal API keys</h2>
      ${shown &&
      html`<div class="once" role="status">
        <p>Copy this key now: it is not shown again.</p>
        <p><label>New key value <input readonly value=${shown.value} class="secret" size="60" onFocus=${(e) => e.target.select()} /></label></p>
        <button type="button" onClick=${() => setShown(null)}>I have copied it</button>
      </div>`}
      ${keys === null
        ? html`<p>Loading…</p>`
        : html`<table>
            <thead><tr><th scope="col">Label</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Projects</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              ${keys.map(
                (k) => html`<tr key=${k.id}>
                  <td>${k.label}</td><td><code>${k.mask_value}</code></td><td>${k.scopes.join(', ')}</td><td>${k.scoped_teams ? k.scoped_teams.join(', ') : 'all'}</td><td>${when(k.created_at)}</td>
                  <td>${keyWritable && html`<button type="button" onClick=${() => roll(k)} aria-label=${`Roll key ${k.label}`}>Roll</button> <button type="button" onClick=${() => revoke(k)} aria-label=${`Revoke key ${k.label}`}>Revoke</button>`}</td>
                </tr>`,
              )}
            </tbody>
          </table>`}
      ${keyWritable && html`<${NewKey} projects=${projects} created=${(k) => { setShown(k); load(); }} />`}
    </section>
  `;
}

function ProjectRow({ project, writable, reload }) {
  const [name, setName] = useState(project.name);
  const [error, setError] = useState(null);
  if (!writable) return html`${project.id}: ${project.name}`;
  const save = async (e) => {
    e.preventDefault();
    try {
      await api(`/api/projects/${project.id}/`, { method: 'PATCH', body: { name } });
      setError(null);
      reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row" onSubmit=${save} aria-label=${`Project ${project.id}`}>
    <label>Project ${project.id} name <input value=${name} onInput=${(e) => setName(e.target.value)} /></label>
    <button type="submit">Rename</button><${ErrorNote} error=${error} />
  </form>`;
}

function NewProject({ reload }) {
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const create = async (e) => {
    e.preventDefault();
    try {
      await api('/api/projects/', { method: 'POST', body: { name } });
      setName('');
      setError(null);
      reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row" onSubmit=${create} aria-label="New project">
    <label>New project name <input name="project_name" required value=${name} onInput=${(e) => setName(e.target.value)} /></label>
    <button type="submit">Create project</button><${ErrorNote} error=${error} />
  </form>`;
}

function NewKey({ projects, created }) {
  const [label, setLabel] = useState('');
  const [preset, setPreset] = useState(Object.keys(PRESETS)[0]);
  const [project, setProject] = useState('');
  const [error, setError] = useState(null);
  const create = async (e) => {
    e.preventDefault();
    try {
      const body = { label, scopes: PRESETS[preset], ...(project ? { scoped_teams: [Number(project)] } : {}) };
      created(await api('/api/personal_api_keys/', { method: 'POST', body }));
      setLabel('');
      setError(null);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${create} aria-label="New personal API key">
    <h3>New key</h3>
    <label>Label <input name="label" required value=${label} onInput=${(e) => setLabel(e.target.value)} /></label>
    <label>Scopes <select name="preset" value=${preset} onChange=${(e) => setPreset(e.target.value)}>${Object.keys(PRESETS).map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
    <label>Limited to project <select name="project" value=${project} onChange=${(e) => setProject(e.target.value)}>
      <option value="">All projects</option>
      ${projects.map((p) => html`<option value=${String(p.id)}>${p.name}</option>`)}
    </select></label>
    <button type="submit">Create key</button>
    <${ErrorNote} error=${error} />
  </form>`;
}
