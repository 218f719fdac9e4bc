/** A progress line on stderr (redrawn in place on a terminal, one line every few seconds otherwise). */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastDraw = 0;
  const tty = stream.isTTY === true;
  const draw = (done: number, total: number, final = false) => {
    const now = Date.now();
    if (!final && now - lastDraw < (tty ? 200 : 3000)) return;
    lastDraw = now;
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(ratio * width);
    const rate = done / Math.max(0.001, (now - started) / 1000);
    const line =
      `${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${(ratio * 100).toFixed(1)}% ` +
      `${done}/${total} (${Math.round(rate)}/s)`;
    stream.write(tty ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  };
  return {
    update: (done: number, total: number) => draw(done, total),
    done: (done: number, total: number) => draw(done, total, true),
  };
}
