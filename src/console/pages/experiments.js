import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote, canWrite, when } from '../ui.js';
import { ExposuresOverTime } from './experiment-exposures.js';
import { ExperimentMetrics } from './experiment-metrics.js';
import { IntervalPlot } from './interval-plot.js';

export function Experiments({ project, experimentId, scopes }) {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api(`/api/projects/${project.id}/experiments/?limit=200`).then((d) => setList(d.results), setError);
  useEffect(() => {
    load();
  }, [project.id]);
  if (experimentId) return html`<${Results} project=${project} id=${experimentId} />`;
  return html`
    <h1>Experiments</h1>
    <${ErrorNote} error=${error} />
    ${canWrite(scopes, 'experiment') && html`<${NewExperiment} project=${project} created=${load} />`}
    ${list === null
      ? html`<p>Loading…</p>`
      : html`<table>
          <thead><tr><th scope="col">Name</th><th scope="col">Flag</th><th scope="col">Status</th><th scope="col">Started</th></tr></thead>
          <tbody>${list.map((e) => html`<tr key=${e.id}><td><a href=${`#/experiments/${e.id}`}>${e.name}</a></td><td>${e.feature_flag_key}</td><td>${e.status ?? '—'}</td><td>${when(e.start_date)}</td></tr>`)}</tbody>
        </table>`}
  `;
}

/**
 * A trends experiment on one event, or a funnel over two or more steps; the API makes its flag
 * (control/test, 50/50) and starts it now.
 */
function NewExperiment({ project, created }) {
  const [name, setName] = useState('');
  const [flagKey, setFlagKey] = useState('');
  const [kind, setKind] = useState('TRENDS');
  const [event, setEvent] = useState('');
  const [steps, setSteps] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const names = kind === 'FUNNELS' ? steps.split(',').map((x) => x.trim()).filter(Boolean) : [event.trim()];
    // The API takes legacy filters as given and would only refuse a one-step funnel when results are read.
    if (kind === 'FUNNELS' && names.length < 2) return setError(new Error('A funnel needs at least two steps, separated by commas.'));
    try {
      await api(`/api/projects/${project.id}/experiments/`, {
        method: 'POST',
        body: { name, feature_flag_key: flagKey, start_date: new Date().toISOString(), filters: { insight: kind, events: names.map((id, order) => ({ id, order })) } },
      });
      setName('');
      setFlagKey('');
      setEvent('');
      setSteps('');
      setError(null);
      created();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row" onSubmit=${submit} aria-label="New experiment">
    <label>Experiment name <input required value=${name} onInput=${(e) => setName(e.target.value)} /></label>
    <label>Flag key <input required value=${flagKey} onInput=${(e) => setFlagKey(e.target.value)} /></label>
    <label>Metric <select value=${kind} onChange=${(e) => setKind(e.target.value)}>
      <option value="TRENDS">Trend (count of one event)</option>
      <option value="FUNNELS">Funnel (conversion through steps)</option>
    </select></label>
    ${kind === 'FUNNELS'
      ? html`<label>Funnel steps (comma separated) <input required value=${steps} onInput=${(e) => setSteps(e.target.value)} placeholder="$pageview, signup" /></label>`
      : html`<label>Metric event <input required value=${event} onInput=${(e) => setEvent(e.target.value)} /></label>`}
    <button type="submit">Create and launch</button>
    <${ErrorNote} error=${error} />
  </form>`;
}

/** An experiment's page: its legacy results (when it has a legacy metric), its current metrics, exposures over time. */
function Results({ project, id }) {
  const [experiment, setExperiment] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/experiments/${encodeURIComponent(id)}/`).then(setExperiment, setError);
  }, [id]);
  if (error) return html`<h1>Experiment results</h1><${ErrorNote} error=${error} /><a href="#/experiments">Back to experiments</a>`;
  if (!experiment) return html`<p>Loading…</p>`;
  const legacy = (experiment.filters?.events?.length ?? 0) > 0;
  return html`
    <h1>Experiment results</h1>
    <p>${experiment.name} · flag <code>${experiment.feature_flag_key}</code> · started ${when(experiment.start_date)}${experiment.end_date ? html` · ended ${when(experiment.end_date)}` : ''}</p>
    ${legacy && html`<${LegacyResults} project=${project} id=${id} />`}
    <${ExperimentMetrics} project=${project} experiment=${experiment} />
    <${ExposuresOverTime} project=${project} id=${id} />
    ${legacy && html`<${Secondary} project=${project} id=${id} />`}
    <a href="#/experiments">Back to experiments</a>
  `;
}

/** PostHog's legacy results of the experiment's `filters` metric. */
function LegacyResults({ project, id }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/experiments/${encodeURIComponent(id)}/results/`).then((d) => setData(d.result ?? d), setError);
  }, [id]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return html`<p>Loading…</p>`;
  const keys = data.variants.map((v) => v.key);
  return html`<section aria-label="Results of the legacy metric">
    <p>Metric: ${data.insight} · significant: <strong>${data.significant ? 'yes' : 'no'}</strong> (${data.significance_code})
      ${data.sample_ratio_mismatch?.mismatch ? html` · <strong class="error">sample ratio mismatch</strong>` : ''}</p>
    <table>
      <thead><tr><th scope="col">Variant</th><th scope="col">${data.insight === 'FUNNELS' ? 'Conversions / failures' : 'Count / exposure'}</th><th scope="col">Probability to be best</th><th scope="col">Credible interval</th></tr></thead>
      <tbody>
        ${data.variants.map(
          (v) => html`<tr key=${v.key}><td>${v.key}</td><td>${data.insight === 'FUNNELS' ? `${v.success_count} / ${v.failure_count}` : `${v.count} / ${v.absolute_exposure}`}</td>
            <td class="probability" data-variant=${v.key}>${(data.probability[v.key] ?? 0).toFixed(4)}</td>
            <td>${(data.credible_intervals[v.key] ?? []).map((x) => Number(x).toFixed(4)).join(' – ')}</td></tr>`,
        )}
      </tbody>
    </table>
    <${IntervalPlot} keys=${keys} intervals=${data.credible_intervals} />
  </section>`;
}

/** Each legacy secondary metric: its value per variant and, when computed, the probability to be best and a plot of the credible intervals. */
function Secondary({ project, id }) {
  const [metrics, setMetrics] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/experiments/${encodeURIComponent(id)}/secondary_results/`).then((d) => setMetrics(d.result ?? []), () => setMetrics([]));
  }, [id]);
  if (!metrics || !metrics.length) return null;
  return html`<section aria-labelledby="secondary-h">
    <h2 id="secondary-h">Secondary metrics</h2>
    ${metrics.map(
      (m, i) => html`<div key=${i} class="secondary">
        <h3>${m.name ?? `Metric ${i + 1}`}</h3>
        ${m.error
          ? html`<p>${typeof m.error === 'string' ? m.error : (m.error.detail ?? JSON.stringify(m.error))}</p>`
          : html`<table>
              <thead><tr><th scope="col">Variant</th><th scope="col">Value</th><th scope="col">Probability to be best</th></tr></thead>
              <tbody>${Object.entries(m.result ?? {}).map(
                ([variant, value]) => html`<tr key=${variant}><td>${variant}</td><td>${typeof value === 'number' ? value.toFixed(4) : JSON.stringify(value)}</td>
                  <td class="secondary-probability" data-variant=${variant}>${m.probability?.[variant] !== undefined ? m.probability[variant].toFixed(4) : '—'}</td></tr>`,
              )}</tbody>
            </table>
            ${m.credible_intervals && Object.keys(m.credible_intervals).length > 0 &&
            html`<${IntervalPlot} keys=${Object.keys(m.credible_intervals)} intervals=${m.credible_intervals} title=${`Credible intervals: ${m.name ?? `Metric ${i + 1}`}`} label=${`Credible intervals of ${m.name ?? `Metric ${i + 1}`}`} />`}`}
      </div>`,
    )}
  </section>`;
}
