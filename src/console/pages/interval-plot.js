import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from '../ui.js';

/** One vertical bar per variant from the low to the high end of its interval (uPlot, canvas). */
export function IntervalPlot({ keys, intervals, title = 'Credible intervals per variant', label = 'Credible intervals' }) {
  const ref = useRef(null);
  useEffect(() => {
    const xs = keys.map((_, i) => i + 1);
    const low = keys.map((k) => intervals[k]?.[0] ?? null);
    const high = keys.map((k) => intervals[k]?.[1] ?? null);
    const plot = new uPlot(
      {
        width: 560,
        height: 260,
        title,
        legend: { show: false },
        scales: { x: { time: false, range: [0.5, keys.length + 0.5] } },
        axes: [{ values: (_u, ticks) => ticks.map((t) => keys[Math.round(t) - 1] ?? ''), incrs: [1] }, {}],
        series: [{}, { label: 'low', stroke: '#1f5fbf', points: { size: 9 }, paths: () => null }, { label: 'high', stroke: '#b3261e', points: { size: 9 }, paths: () => null }],
        hooks: {
          draw: [
            (u) => {
              const ctx = u.ctx;
              ctx.save();
              ctx.strokeStyle = '#333';
              ctx.lineWidth = 3;
              xs.forEach((x, i) => {
                if (low[i] === null || high[i] === null) return;
                ctx.beginPath();
                ctx.moveTo(u.valToPos(x, 'x', true), u.valToPos(low[i], 'y', true));
                ctx.lineTo(u.valToPos(x, 'x', true), u.valToPos(high[i], 'y', true));
                ctx.stroke();
              });
              ctx.restore();
            },
          ],
        },
      },
      [xs, low, high],
      ref.current,
    );
    return () => plot.destroy();
  }, [keys.join(','), JSON.stringify(intervals)]);
  return html`<figure><div ref=${ref} class="plot" role="img" aria-label=${`${label} for ${keys.join(', ')}`}></div><figcaption>Each bar spans a variant's interval.</figcaption></figure>`;
}
