import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, when } from '../ui.js';

/** Properties are shown as JSON text: whatever an SDK sent stays text. */
const props = (p) => JSON.stringify(p);

/** A property filter `key=value` matched here, on the page fetched (the events API filters by name and distinct id). */
function matches(event, filter) {
  if (!filter) return true;
  const at = filter.indexOf('=');
  const key = at < 0 ? filter : filter.slice(0, at);
  const value = at < 0 ? undefined : filter.slice(at + 1);
  if (!(key in event.properties)) return false;
  return value === undefined || String(event.properties[key]) === value;
}

/** The latest events (polled every few seconds while "Live" is on), with filters. */
export function Events({ project }) {
  const [events, setEvents] = useState(null);
  const [filters, setFilters] = useState({ event: '', distinct_id: '', property: '' });
  const [live, setLive] = useState(true);
  const [error, setError] = useState(null);
  const query = () => {
    const q = new URLSearchParams({ limit: '100' });
    if (filters.event) q.set('event', filters.event);
    if (filters.distinct_id) q.set('distinct_id', filters.distinct_id);
    return api(`/api/projects/${project.id}/events/?${q}`).then((d) => {
      setEvents(d.results);
      setError(null);
    }, setError);
  };
  useEffect(() => {
    query();
    if (!live) return undefined;
    const timer = setInterval(query, 3000);
    return () => clearInterval(timer);
  }, [project.id, filters.event, filters.distinct_id, live]);
  const set = (name) => (e) => setFilters({ ...filters, [name]: e.target.value });
  const shown = (events ?? []).filter((e) => matches(e, filters.property));
  return html`
    <h1>Events</h1>
    <form class="row" aria-label="Event filters" onSubmit=${(e) => e.preventDefault()}>
      <label>Event name <input name="event" value=${filters.event} onChange=${set('event')} /></label>
      <label>Distinct id <input name="distinct_id" value=${filters.distinct_id} onChange=${set('distinct_id')} /></label>
      <label>Property (key or key=value) <input name="property" value=${filters.property} onInput=${set('property')} /></label>
      <label class="inline"><input type="checkbox" checked=${live} onChange=${(e) => setLive(e.target.checked)} /> Live (every 3 s)</label>
    </form>
    <${ErrorNote} error=${error} />
    ${events === null
      ? html`<p>Loading…</p>`
      : html`<table class="events">
          <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Distinct id</th><th scope="col">Properties</th></tr></thead>
          <tbody>${shown.map(
            (e) => html`<tr key=${e.uuid}><td>${when(e.timestamp)}</td><td>${e.event}</td>
              <td>${e.person_id ? html`<a href=${`#/persons/${e.person_id}`}>${e.distinct_id}</a>` : e.distinct_id}</td><td><code>${props(e.properties)}</code></td></tr>`,
          )}</tbody>
        </table>`}
  `;
}

/** Person search by distinct id, and a person's page: properties, distinct ids, recent events. */
export function Persons({ project, personId }) {
  const [persons, setPersons] = useState(null);
  const [search, setSearch] = useState('');
  const [error, setError] = useState(null);
  const load = (distinctId) =>
    api(`/api/projects/${project.id}/persons/?limit=100${distinctId ? `&distinct_id=${encodeURIComponent(distinctId)}` : ''}`).then((d) => setPersons(d.results), setError);
  useEffect(() => {
    if (!personId) load('');
  }, [project.id, personId]);
  if (personId) return html`<${Person} project=${project} id=${personId} />`;
  return html`
    <h1>Persons</h1>
    <form class="row" aria-label="Person search" onSubmit=${(e) => { e.preventDefault(); load(search.trim()); }}>
      <label>Distinct id <input name="search" value=${search} onInput=${(e) => setSearch(e.target.value)} /></label>
      <button type="submit">Search</button>
    </form>
    <${ErrorNote} error=${error} />
    ${persons === null
      ? html`<p>Loading…</p>`
      : html`<table>
          <thead><tr><th scope="col">Distinct ids</th><th scope="col">Properties</th><th scope="col">Created</th></tr></thead>
          <tbody>${persons.map(
            (p) => html`<tr key=${p.uuid}><td><a href=${`#/persons/${p.uuid}`}>${p.distinct_ids.join(', ')}</a></td><td><code>${props(p.properties)}</code></td><td>${when(p.created_at)}</td></tr>`,
          )}</tbody>
        </table>`}
  `;
}

/** A person's page: distinct ids, properties, the groups its recent events name, its recent events. */
function Person({ project, id }) {
  const [person, setPerson] = useState(null);
  const [events, setEvents] = useState([]);
  const [error, setError] = useState(null);
  useEffect(() => {
    Promise.all([
      api(`/api/projects/${project.id}/persons/${encodeURIComponent(id)}/`),
      api(`/api/projects/${project.id}/events/?limit=50&person_id=${encodeURIComponent(id)}`),
    ]).then(([p, e]) => {
      setPerson(p);
      setEvents(e.results);
    }, setError);
  }, [id]);
  if (error) return html`<h1>Person</h1><${ErrorNote} error=${error} />`;
  if (!person) return html`<p>Loading…</p>`;
  return html`
    <h1>Person ${person.distinct_ids[0] ?? person.uuid}</h1>
    <h2>Distinct ids</h2>
    <ul>${person.distinct_ids.map((d) => html`<li key=${d}>${d}</li>`)}</ul>
    <h2>Properties</h2>
    <table><tbody>${Object.entries(person.properties).map(([k, v]) => html`<tr key=${k}><th scope="row">${k}</th><td>${typeof v === 'string' ? v : JSON.stringify(v)}</td></tr>`)}</tbody></table>
    <${PersonGroups} project=${project} events=${events} />
    <h2>Recent events</h2>
    <table><tbody>${events.map((e) => html`<tr key=${e.uuid}><td>${when(e.timestamp)}</td><td>${e.event}</td><td>${e.distinct_id}</td></tr>`)}</tbody></table>
    <a href="#/persons">Back to persons</a>
  `;
}

/** The groups (type, key, properties) the person's recent events were sent for. */
function PersonGroups({ project, events }) {
  const [groups, setGroups] = useState(null);
  const named = [];
  for (const e of events) {
    for (let i = 0; i < 5; i++) {
      const key = e[`group_${i}`];
      if (key && !named.some((g) => g.index === i && g.key === key)) named.push({ index: i, key });
    }
  }
  const wanted = named.map((g) => `${g.index}:${g.key}`).join('|');
  useEffect(() => {
    if (!named.length) return void setGroups([]);
    Promise.all([
      api(`/api/projects/${project.id}/groups_types/`),
      ...named.map((g) => api(`/api/projects/${project.id}/groups/?group_type_index=${g.index}&group_key=${encodeURIComponent(g.key)}`)),
    ]).then(([types, ...found]) => {
      const typeName = (i) => types.find((t) => t.group_type_index === i)?.group_type ?? `group ${i}`;
      setGroups(named.map((g, n) => ({ ...g, type: typeName(g.index), properties: found[n].results[0]?.group_properties ?? {} })));
    }, () => setGroups([]));
  }, [project.id, wanted]);
  if (!groups || !groups.length) return null;
  return html`<h2>Groups</h2>
    <table class="person-groups">
      <thead><tr><th scope="col">Type</th><th scope="col">Key</th><th scope="col">Properties</th></tr></thead>
      <tbody>${groups.map((g) => html`<tr key=${`${g.index}:${g.key}`}><td>${g.type}</td><td>${g.key}</td><td><code>${props(g.properties)}</code></td></tr>`)}</tbody>
    </table>`;
}
