export interface Progress {
  /** Events done so far in this run; `fraction` of the whole work (omitted when unknown, e.g. stdin). */
  update(events: number, fraction?: number): void;
  /** Draws the final line (always, even if the last update was drawn a moment ago). */
  done(events: number, fraction?: number): void;
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * A progress line on stderr in events and events/s (redrawn in place on a terminal, a line every
 * few seconds otherwise). A bar and a percentage when the whole is known: a file's bytes read, the
 * log positions folded; the counter is always events (records where a command handles records), whatever the percentage is measured on.
 */
export function progressBar(label: string, unit = 'events', stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  let lastDraw = 0;
  const tty = stream.isTTY === true;
  const draw = (events: number, fraction: number | undefined, final: boolean) => {
    const now = Date.now();
    if (!final && now - lastDraw < (tty ? 200 : 3000)) return;
    lastDraw = now;
    const seconds = Math.max(0.001, (now - started) / 1000);
    let bar = '';
    if (fraction !== undefined) {
      const ratio = Math.max(0, Math.min(1, final ? 1 : fraction));
      const width = 30;
      const filled = Math.round(ratio * width);
      bar = `[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${(ratio * 100).toFixed(1)}% `;
    }
    const line = `${label} ${bar}${count(events)} ${unit} (${count(events / seconds)} ${unit}/s${final ? `, ${seconds.toFixed(1)} s` : ''})`;
    stream.write(tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  };
  return {
    update: (events, fraction) => draw(events, fraction, false),
    done: (events, fraction) => draw(events, fraction, true),
  };
}
