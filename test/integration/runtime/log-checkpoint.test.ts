import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src/access';
import { openRuntime } from '../../../src/app';
import { tempDir } from '../../support/temp-dir';

describe('checkpoints with a projection thread', () => {
  it('the checkpointer thread copies the log and read-model WALs back while request and fold threads only append', async () => {
    const dataDir = tempDir('log-checkpoint-runtime-');
    const runtime = openRuntime({ dataDir, projectionsInWorker: true });
    try {
      await runtime.ready;
      await runtime.runner.catchUp();
      runtime.runner.start();
      const { credentials } = await bootstrap(runtime.access, runtime.queries.access, { type: 'system' });
      const logFile = join(dataDir, 'events.sqlite');
      const modelsFile = join(dataDir, 'readmodels.sqlite');
      const before = statSync(logFile).size;
      const modelsBefore = statSync(modelsFile).size;
      // ~2 MB of events through the real capture path: far below the backstops (160 MB, 256 MB).
      const batch = Array.from({ length: 2000 }, (_, i) => ({ event: 'e', distinct_id: `u${i % 50}`, properties: { pad: 'p'.repeat(900) } }));
      const body = Buffer.from(JSON.stringify({ api_key: credentials.project_api_key, batch }));
      const { position } = await runtime.ingest.ingest({ body, contentType: 'application/json', query: {}, ip: undefined, maxDecompressedBytes: 64e6 });
      await runtime.runner.waitFor(position!);

      const deadline = Date.now() + 10_000;
      const copied = () => statSync(logFile).size >= before + 1_500_000 && statSync(modelsFile).size >= modelsBefore + 1_500_000;
      while (!copied() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(statSync(logFile).size).toBeGreaterThanOrEqual(before + 1_500_000);
      expect(statSync(modelsFile).size).toBeGreaterThanOrEqual(modelsBefore + 1_500_000);
      expect(await runtime.queries.ingestion.events(credentials.project_id, { limit: 5000, offset: 0 })).toHaveLength(2000);
    } finally {
      await runtime.close();
    }
  }, 30_000);
});
