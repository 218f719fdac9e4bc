/** Prints benchmark rows as an aligned table, plus one JSON line for scripts. */
export function report(title: string, rows: Record<string, string | number>[]) {
  console.log(`\n${title}`);
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => fmt(r[k]).length)));
  console.log(keys.map((k, i) => k.padEnd(width[i])).join('  '));
  for (const r of rows) console.log(keys.map((k, i) => fmt(r[k]).padEnd(width[i])).join('  '));
  console.log(`JSON ${JSON.stringify({ title, rows })}`);
}

function fmt(v: string | number | undefined): string {
  if (v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toFixed(3);
  return v;
}

export function timed<T>(fn: () => T): { result: T; seconds: number } {
  const t = process.hrtime.bigint();
  const result = fn();
  return { result, seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}

export async function timedAsync<T>(fn: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const t = process.hrtime.bigint();
  const result = await fn();
  return { result, seconds: Number(process.hrtime.bigint() - t) / 1e9 };
}
