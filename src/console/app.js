import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, signIn, signOut, signedIn } from './api.js';
import { html, ErrorNote } from './ui.js';
import { Overview } from './pages/overview.js';
import { Flags } from './pages/flags.js';
import { Keys } from './pages/keys.js';
import { Experiments } from './pages/experiments.js';
import { Exports } from './pages/exports.js';
import { Events, Persons } from './pages/events.js';
import { Catalogue } from './pages/catalogue.js';
import './style.css';

const PAGES = [
  ['overview', 'Overview'],
  ['flags', 'Feature flags'],
  ['experiments', 'Experiments'],
  ['exports', 'Batch exports'],
  ['events', 'Events'],
  ['persons', 'Persons'],
  ['catalogue', 'Surveys, features, cohorts'],
  ['keys', 'Projects and keys'],
];

// The route lives in the fragment: it never reaches the server, and the key is never part of it.
const routeOf = () => location.hash.replace(/^#\/?/, '') || 'overview';

function SignIn({ done }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    try {
      await signIn(value.trim());
      setValue('');
      done();
    } catch (err) {
      setError(err.status === 401 ? new Error('That key was not accepted.') : err);
    }
  };
  return html`<main id="main">
    <h1>Sign in</h1>
    <form onSubmit=${submit} aria-label="Sign in">
      <p>Sign in with a personal API key (<code>phx_…</code>). It is kept in this tab only and sent to this service's API, nowhere else.</p>
      <label>Personal API key <input type="password" name="personal_api_key" autocomplete="off" required value=${value} onInput=${(e) => setValue(e.target.value)} /></label>
      <button type="submit">Sign in</button>
      <${ErrorNote} error=${error} />
    </form>
  </main>`;
}

function Console({ out }) {
  const [route, setRoute] = useState(routeOf());
  const [projects, setProjects] = useState(null);
  const [projectId, setProjectId] = useState(null);
  const [scopes, setScopes] = useState(null);
  const [error, setError] = useState(null);
  const loadProjects = () =>
    api('/api/projects/?limit=1000').then((d) => {
      setProjects(d.results);
      setProjectId((current) => (d.results.some((p) => p.id === current) ? current : (d.results[0]?.id ?? null)));
    }, setError);
  useEffect(() => {
    const onHash = () => setRoute(routeOf());
    addEventListener('hashchange', onHash);
    loadProjects();
    // Scopes only decide which write controls to show; the API enforces them either way.
    api('/api/users/@me/').then((me) => setScopes(me.scopes), () => setScopes(null));
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.getElementById('main')?.focus();
  }, [route.split('/')[0]]);
  const go = (r) => {
    location.hash = `#/${r}`;
  };
  const [page, id] = route.split('/');
  const project = projects?.find((p) => p.id === projectId);
  let body;
  if (error) body = html`<${ErrorNote} error=${error} />`;
  else if (!projects) body = html`<p>Loading…</p>`;
  else if (!project && page !== 'keys') body = html`<p>This key reaches no project.</p>`;
  else if (page === 'flags') body = html`<${Flags} project=${project} scopes=${scopes} go=${go} flagId=${id} />`;
  else if (page === 'experiments') body = html`<${Experiments} project=${project} experimentId=${id} scopes=${scopes} />`;
  else if (page === 'exports') body = html`<${Exports} project=${project} scopes=${scopes} exportId=${id} />`;
  else if (page === 'events') body = html`<${Events} project=${project} />`;
  else if (page === 'persons') body = html`<${Persons} project=${project} personId=${id} />`;
  else if (page === 'catalogue') body = html`<${Catalogue} project=${project} />`;
  else if (page === 'keys') body = html`<${Keys} projects=${projects} scopes=${scopes} reloadProjects=${loadProjects} />`;
  else body = html`<${Overview} projects=${projects} project=${project} />`;
  return html`
    <a class="skip" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main').focus(); }}>Skip to content</a>
    <header>
      <nav aria-label="Console">
        <ul>${PAGES.map(([r, label]) => html`<li key=${r}><a href=${`#/${r}`} aria-current=${page === r ? 'page' : undefined}>${label}</a></li>`)}</ul>
      </nav>
      ${projects?.length > 0 &&
      html`<label class="project">Project <select value=${String(projectId)} onChange=${(e) => setProjectId(Number(e.target.value))}>
        ${projects.map((p) => html`<option value=${String(p.id)} key=${p.id}>${p.name}</option>`)}
      </select></label>`}
      <button type="button" onClick=${() => { signOut(); out(); }}>Sign out</button>
    </header>
    <main id="main" tabindex="-1">${body}</main>
  `;
}

function App() {
  const [inside, setInside] = useState(signedIn());
  return inside ? html`<${Console} out=${() => setInside(false)} />` : html`<${SignIn} done=${() => setInside(true)} />`;
}

// The static "Loading…" note is replaced, not kept beside the app.
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
