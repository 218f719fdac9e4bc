import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../support/child';

const srcDir = join(repoRoot, 'src');
const adapterDir = join(srcDir, 'adapters/eventstore');
const files = (readdirSync(srcDir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(srcDir, f))
  .filter((f) => !f.startsWith(adapterDir));
const IMPORT = /^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm;

describe('the KurrentDB client loads only when EVENT_LOG names it', () => {
  it('no file outside the adapter imports the client, or the adapter other than by type or its pure connection module', () => {
    const found = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(IMPORT)]
        .filter(([, type, spec]) => !type && (spec === '@eventstore/db-client' || (/adapters\/eventstore/.test(spec) && !spec.endsWith('/eventstore/connection'))))
        .map(([, , spec]) => `${relative(repoRoot, file)}: ${spec}`),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(found).toEqual([]);
  });
});
