import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api } from '../api.js';
import { html, ErrorNote } from '../ui.js';

const COLOURS = ['#1f5fbf', '#b3261e', '#2e7d32', '#8e24aa', '#ef6c00', '#00838f', '#6d4c41'];

/**
 * Exposures over time: PostHog's ExperimentExposureQuery through the query endpoint, drawn as one
 * cumulative line per variant (uPlot), with the totals as a table and the sample-ratio verdict.
 */
export function ExposuresOverTime({ project, id }) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(`/api/projects/${project.id}/query/`, { method: 'POST', body: { query: { kind: 'ExperimentExposureQuery', experiment_id: Number(id) } } }).then(setData, setError);
  }, [id]);
  if (error) return html`<section aria-labelledby="exposures-h"><h2 id="exposures-h">Exposures over time</h2><${ErrorNote} error=${error} /></section>`;
  if (!data) return null;
  const srm = data.sample_ratio_mismatch;
  return html`<section aria-labelledby="exposures-h">
    <h2 id="exposures-h">Exposures over time</h2>
    ${data.timeseries.length === 0
      ? html`<p>No exposures yet.</p>`
      : html`<${ExposurePlot} series=${data.timeseries} />
          <table class="exposure-totals">
            <thead><tr><th scope="col">Variant</th><th scope="col">Exposed</th><th scope="col">Expected</th></tr></thead>
            <tbody>${data.timeseries.map(
              (t) => html`<tr key=${t.variant}><td>${t.variant}</td><td class="exposure-total" data-variant=${t.variant}>${data.total_exposures[t.variant]}</td>
                <td>${srm?.expected?.[t.variant] !== undefined ? srm.expected[t.variant].toFixed(1) : '—'}</td></tr>`,
            )}</tbody>
          </table>`}
    <p class="srm">${srm
      ? html`Sample ratio check: p = ${srm.p_value.toPrecision(3)}${srm.p_value < 0.001 ? html` · <strong class="error">the split does not match the rollout</strong>` : ' · consistent with the rollout'}`
      : 'Sample ratio check: needs at least 100 exposures.'}</p>
  </section>`;
}

function ExposurePlot({ series }) {
  const ref = useRef(null);
  useEffect(() => {
    const xs = series[0].days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: 560,
        height: 260,
        title: 'Cumulative exposures per variant',
        scales: { x: { time: true } },
        series: [{}, ...series.map((t, i) => ({ label: t.variant, stroke: COLOURS[i % COLOURS.length], width: 2, points: { size: 6 } }))],
      },
      [xs, ...series.map((t) => t.exposure_counts)],
      ref.current,
    );
    return () => plot.destroy();
  }, [JSON.stringify(series)]);
  return html`<figure><div ref=${ref} class="plot" role="img" aria-label=${`Cumulative exposures over time for ${series.map((t) => t.variant).join(', ')}`}></div>
    <figcaption>Each line counts the people exposed to a variant up to that day.</figcaption></figure>`;
}
