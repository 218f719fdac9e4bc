import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { html, ErrorNote } from '../ui.js';
import { IntervalPlot } from './interval-plot.js';

/** A relative effect is a fraction, shown as a percentage; an absolute one is in the metric's unit. */
const percent = (x) => `${(x * 100).toFixed(1)}%`;

/** What an arm measured: the conversion rate of a funnel, the mean per entity otherwise. */
function measured(metric, arm) {
  if (!arm.number_of_samples) return '—';
  if (metric.metric_type === 'ratio') return arm.denominator_sum ? (arm.sum / arm.denominator_sum).toFixed(4) : '—';
  const value = arm.sum / arm.number_of_samples;
  return metric.metric_type === 'funnel' ? percent(value) : value.toFixed(4);
}

/**
 * The experiment's current metrics (PostHog's `metrics` and `metrics_secondary`), each answered by
 * an `ExperimentQuery` through the query endpoint: per variant the samples, the mean or conversion,
 * chance to win or p-value, the interval of the effect (plotted) and whether it is significant.
 */
export function ExperimentMetrics({ project, experiment }) {
  const primary = experiment.metrics ?? [];
  const secondary = experiment.metrics_secondary ?? [];
  if (!primary.length && !secondary.length) return null;
  const config = experiment.stats_config ?? {};
  const absolute = (config.method === 'frequentist' ? config.frequentist : config.bayesian)?.difference_type === 'ABSOLUTE';
  return html`<section aria-labelledby="metrics-h">
    <h2 id="metrics-h">Metrics</h2>
    ${[...primary.map((m) => [m, 'Primary']), ...secondary.map((m) => [m, 'Secondary'])].map(
      ([metric, role], i) => html`<${MetricResult} key=${metric.uuid ?? i} project=${project} experimentId=${experiment.id} metric=${metric} role=${role} absolute=${absolute} />`,
    )}
  </section>`;
}

function MetricResult({ project, experimentId, metric, role, absolute }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/query/`, { method: 'POST', body: { query: { kind: 'ExperimentQuery', experiment_id: experimentId, metric } } }).then(setData, setError);
  }, [experimentId, metric.uuid]);
  const title = `${role}: ${metric.name ?? metric.metric_type}`;
  if (error) return html`<div class="metric"><h3>${title}</h3><${ErrorNote} error=${error} /></div>`;
  if (!data) return html`<div class="metric"><h3>${title}</h3><p>Loading…</p></div>`;
  const arms = [data.baseline, ...data.variant_results];
  const bayesian = data.variant_results[0]?.method !== 'frequentist';
  const intervalOf = (v) => (bayesian ? v.credible_interval : v.confidence_interval);
  const intervals = Object.fromEntries(data.variant_results.filter((v) => intervalOf(v)).map((v) => [v.key, intervalOf(v)]));
  return html`<div class="metric" data-metric=${metric.uuid ?? ''}>
    <h3>${title}</h3>
    <table>
      <thead><tr><th scope="col">Variant</th><th scope="col">Exposed</th><th scope="col">${metric.metric_type === 'funnel' ? 'Conversion' : metric.metric_type === 'ratio' ? 'Ratio' : 'Mean'}</th>
        <th scope="col">${bayesian ? 'Chance to win' : 'p-value'}</th><th scope="col">${bayesian ? 'Credible' : 'Confidence'} interval of the effect</th><th scope="col">Significant</th></tr></thead>
      <tbody>${arms.map((arm, i) => {
        const v = i === 0 ? null : arm;
        const stat = v === null ? 'baseline' : bayesian ? (v.chance_to_win ?? null) : (v.p_value ?? null);
        return html`<tr key=${arm.key}><td>${arm.key}</td><td>${arm.number_of_samples}</td><td>${measured(metric, arm)}</td>
          <td class="metric-stat" data-variant=${arm.key}>${typeof stat === 'number' ? stat.toFixed(4) : (stat ?? '—')}</td>
          <td>${v && intervalOf(v) ? intervalOf(v).map((x) => (absolute ? Number(x).toFixed(4) : percent(x))).join(' – ') : '—'}</td>
          <td>${v ? (v.significant ? 'yes' : 'no') : ''}${arm.validation_failures?.length ? html` <span class="note">(${arm.validation_failures.join(', ')})</span>` : ''}</td></tr>`;
      })}</tbody>
    </table>
    ${Object.keys(intervals).length > 0 &&
    html`<${IntervalPlot} keys=${Object.keys(intervals)} intervals=${intervals} title=${`${bayesian ? 'Credible' : 'Confidence'} intervals of the effect`} label=${`${bayesian ? 'Credible' : 'Confidence'} intervals of ${title}`} />`}
  </div>`;
}
