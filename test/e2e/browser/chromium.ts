import { existsSync } from 'node:fs';

/** Debian's Chromium, as `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser suite can run. In CI a missing Chromium is a failure (the suite must not
 * pass by skipping); elsewhere the suite is skipped, saying why on stderr.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  process.stderr.write(`browser suite skipped: ${CHROMIUM} is missing (apt-get install chromium)\n`);
  return false;
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
