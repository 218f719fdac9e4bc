import { useEffect, useState } from 'preact/hooks';
import { api, evaluateFlags } from '../api.js';
import { html, ErrorNote, canWrite, when } from '../ui.js';

/** Every operator the flag engine matches on (src/flags/operators.ts). */
const OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with',
  'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set', 'is_date_before', 'is_date_after', 'is_date_exact',
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte', 'semver_tilde', 'semver_caret', 'semver_wildcard',
];

const rolloutOf = (flag) => {
  const groups = flag.filters?.groups ?? [];
  if (!groups.length) return '—';
  return groups.map((g) => `${g.rollout_percentage ?? 100}%${g.properties?.length ? ` if ${g.properties.length} condition(s)` : ''}`).join(', ');
};

export function Flags({ project, scopes, go, flagId }) {
  const [flags, setFlags] = useState(null);
  const [error, setError] = useState(null);
  const base = `/api/projects/${project.id}/feature_flags/`;
  const load = () => api(`${base}?limit=200`).then((d) => setFlags(d.results), setError);
  useEffect(() => {
    setFlags(null);
    load();
  }, [project.id]);
  const writable = canWrite(scopes, 'feature_flag');
  if (flagId !== undefined) {
    const flag = flagId === 'new' ? null : flags?.find((f) => String(f.id) === flagId);
    if (flagId !== 'new' && !flag) return html`<${ErrorNote} error=${error} /><p>Loading…</p>`;
    return html`<${FlagEditor} key=${flagId} project=${project} flag=${flag} writable=${writable} done=${() => { load(); go('flags'); }} />`;
  }
  return html`
    <h1>Feature flags</h1>
    ${writable && html`<p><button type="button" onClick=${() => go('flags/new')}>New flag</button></p>`}
    <${ErrorNote} error=${error} />
    ${flags === null
      ? html`<p>Loading…</p>`
      : html`<table>
          <thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Active</th><th scope="col">Rollout</th><th scope="col">Last change</th></tr></thead>
          <tbody>
            ${flags.map(
              (f) => html`<tr key=${f.id}>
                <td><a href=${`#/flags/${f.id}`}>${f.key}</a></td><td>${f.name}</td><td>${f.active ? 'yes' : 'no'}</td><td>${rolloutOf(f)}</td><td>${when(f.updated_at)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  `;
}

const emptyGroup = () => ({ properties: [], rollout_percentage: 100 });

/** The project's group types (index and name), for matching a flag by groups. */
function useGroupTypes(project) {
  const [types, setTypes] = useState([]);
  useEffect(() => {
    api(`/api/projects/${project.id}/groups_types/`).then(setTypes, () => setTypes([]));
  }, [project.id]);
  return types;
}

function FlagEditor({ project, flag, writable, done }) {
  const [key, setKey] = useState(flag?.key ?? '');
  const [name, setName] = useState(flag?.name ?? '');
  const [active, setActive] = useState(flag?.active ?? true);
  const [groups, setGroups] = useState(flag?.filters?.groups?.length ? flag.filters.groups : [emptyGroup()]);
  const [variants, setVariants] = useState(flag?.filters?.multivariate?.variants ?? []);
  const [payloads, setPayloads] = useState(JSON.stringify(flag?.filters?.payloads ?? {}));
  // Match by persons (null) or by a group type's index: the flag then rolls out per group, on its properties.
  const [aggregation, setAggregation] = useState(flag?.filters?.aggregation_group_type_index ?? null);
  const groupTypes = useGroupTypes(project);
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(null);

  const setGroup = (i, change) => setGroups(groups.map((g, j) => (j === i ? { ...g, ...change } : g)));
  const setProperty = (gi, pi, change) =>
    setGroup(gi, { properties: groups[gi].properties.map((p, j) => (j === pi ? { ...p, ...change } : p)) });

  async function save(e) {
    e.preventDefault();
    setError(null);
    let parsedPayloads;
    try {
      parsedPayloads = JSON.parse(payloads || '{}');
    } catch {
      setError(new Error('Payloads must be a JSON object.'));
      return;
    }
    const filters = {
      groups: groups.map((g) => ({
        rollout_percentage: Number(g.rollout_percentage),
        properties: g.properties.map((p) => ({
          key: p.key,
          operator: p.operator,
          ...(aggregation === null ? { type: 'person' } : { type: 'group', group_type_index: aggregation }),
          ...(p.operator === 'is_set' || p.operator === 'is_not_set' ? { value: p.operator } : { value: p.value }),
        })),
      })),
      ...(variants.length ? { multivariate: { variants: variants.map((v) => ({ key: v.key, rollout_percentage: Number(v.rollout_percentage) })) } } : {}),
      payloads: parsedPayloads,
      aggregation_group_type_index: aggregation,
    };
    try {
      const base = `/api/projects/${project.id}/feature_flags/`;
      const body = flag ? await api(`${base}${flag.id}/`, { method: 'PATCH', body: { name, active, filters } }) : await api(base, { method: 'POST', body: { key, name, active, filters } });
      setSaved(body);
      done();
    } catch (err) {
      setError(err);
    }
  }

  return html`
    <h1>${flag ? `Flag ${flag.key}` : 'New feature flag'}</h1>
    <form onSubmit=${save} aria-label="Feature flag">
      <fieldset disabled=${!writable}>
        <legend>Flag</legend>
        <label>Key <input name="key" value=${key} required disabled=${!!flag} onInput=${(e) => setKey(e.target.value)} /></label>
        <label>Name <input name="name" value=${name} onInput=${(e) => setName(e.target.value)} /></label>
        <label class="inline"><input type="checkbox" name="active" checked=${active} onChange=${(e) => setActive(e.target.checked)} /> Active</label>
        <label>Match by <select name="aggregation" value=${aggregation === null ? '' : String(aggregation)} onChange=${(e) => setAggregation(e.target.value === '' ? null : Number(e.target.value))}>
          <option value="">Persons</option>
          ${groupTypes.map((t) => html`<option value=${String(t.group_type_index)}>Groups: ${t.group_type}</option>`)}
        </select></label>
      </fieldset>
      ${groups.map(
        (g, gi) => html`<fieldset key=${gi} disabled=${!writable}>
          <legend>Release condition ${gi + 1}</legend>
          ${g.properties.map(
            (p, pi) => html`<div class="row" key=${pi}>
              <label>${aggregation === null ? 'Property' : 'Group property'} <input value=${p.key} onInput=${(e) => setProperty(gi, pi, { key: e.target.value })} /></label>
              <label>Operator <select value=${p.operator} onChange=${(e) => setProperty(gi, pi, { operator: e.target.value })}>
                ${OPERATORS.map((o) => html`<option value=${o}>${o}</option>`)}
              </select></label>
              <label>Value <input value=${Array.isArray(p.value) ? p.value.join(',') : String(p.value ?? '')} onInput=${(e) => setProperty(gi, pi, { value: e.target.value })} /></label>
              <button type="button" onClick=${() => setGroup(gi, { properties: g.properties.filter((_, j) => j !== pi) })}>Remove condition</button>
            </div>`,
          )}
          <button type="button" onClick=${() => setGroup(gi, { properties: [...g.properties, { key: '', operator: 'exact', value: '' }] })}>Add property condition</button>
          <label>Rollout percentage <input type="number" name=${`rollout-${gi}`} min="0" max="100" value=${g.rollout_percentage ?? 100} onInput=${(e) => setGroup(gi, { rollout_percentage: e.target.value })} /></label>
          ${groups.length > 1 && html`<button type="button" onClick=${() => setGroups(groups.filter((_, j) => j !== gi))}>Remove release condition</button>`}
        </fieldset>`,
      )}
      <fieldset disabled=${!writable}>
        <legend>Variants (empty: a boolean flag)</legend>
        ${variants.map(
          (v, vi) => html`<div class="row" key=${vi}>
            <label>Variant key <input value=${v.key} onInput=${(e) => setVariants(variants.map((x, j) => (j === vi ? { ...x, key: e.target.value } : x)))} /></label>
            <label>Split % <input type="number" min="0" max="100" value=${v.rollout_percentage} onInput=${(e) => setVariants(variants.map((x, j) => (j === vi ? { ...x, rollout_percentage: e.target.value } : x)))} /></label>
            <button type="button" onClick=${() => setVariants(variants.filter((_, j) => j !== vi))}>Remove variant</button>
          </div>`,
        )}
        <button type="button" onClick=${() => setVariants([...variants, { key: '', rollout_percentage: 0 }])}>Add variant</button>
        <label>Payloads (JSON by value) <textarea rows="2" value=${payloads} onInput=${(e) => setPayloads(e.target.value)}></textarea></label>
      </fieldset>
      <p>
        ${writable && html`<button type="button" onClick=${() => setGroups([...groups, emptyGroup()])}>Add release condition</button> `}
        ${writable && html`<button type="submit">Save flag</button> `}
        <a href="#/flags">Back to flags</a>
      </p>
      <${ErrorNote} error=${error} />
      ${saved && html`<p role="status">Saved.</p>`}
    </form>
    ${flag && html`<${TryIt} project=${project} flag=${flag} groupTypes=${groupTypes} />`}
  `;
}

/** "Try it": what /flags/ answers a distinct id for this flag, as an SDK would see it. */
function TryIt({ project, flag, groupTypes }) {
  const [distinctId, setDistinctId] = useState('');
  const [props, setProps] = useState('{}');
  const [groupKey, setGroupKey] = useState('');
  const aggregation = flag.filters?.aggregation_group_type_index ?? null;
  const groupType = aggregation === null ? null : (groupTypes.find((t) => t.group_type_index === aggregation)?.group_type ?? null);
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  async function run(e) {
    e.preventDefault();
    setError(null);
    try {
      const properties = JSON.parse(props || '{}');
      const body = groupType
        ? await evaluateFlags(project.api_token, distinctId, {}, { groups: { [groupType]: groupKey }, group_properties: { [groupType]: properties } })
        : await evaluateFlags(project.api_token, distinctId, properties);
      const detail = body.flags?.[flag.key];
      setAnswer(detail ?? { enabled: false, reason: { code: 'missing', description: 'not in the answer' } });
    } catch (err) {
      setError(err);
    }
  }
  const value = answer ? (answer.variant ?? answer.enabled) : null;
  return html`
    <section aria-labelledby="try-h">
      <h2 id="try-h">Try it</h2>
      <form onSubmit=${run} aria-label="Try the flag">
        <label>Distinct id <input name="distinct_id" required value=${distinctId} onInput=${(e) => setDistinctId(e.target.value)} /></label>
        ${groupType && html`<label>${`Group key (${groupType})`} <input name="group_key" required value=${groupKey} onInput=${(e) => setGroupKey(e.target.value)} /></label>`}
        <label>${groupType ? 'Group properties (JSON)' : 'Person properties (JSON)'} <input name="person_properties" value=${props} onInput=${(e) => setProps(e.target.value)} /></label>
        <button type="submit">Evaluate</button>
      </form>
      <${ErrorNote} error=${error} />
      ${answer && html`<p role="status" class="try-answer">Value: <strong data-value=${String(value)}>${String(value)}</strong> · reason: <span>${answer.reason?.code ?? '—'}</span>${answer.reason?.description ? ` (${answer.reason.description})` : ''}</p>`}
    </section>
  `;
}
