import { createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../app';
import { loadConfig } from '../config';
import { admitWithin, configuredLimits, RateLimitedError } from '../ingest/rate-limited';
import { parse, UsageError } from './args';
import { importStateStore, type ImportState } from './import-state';
import { checkParsedJson, wellFormedText } from '../ingest/json-limits';
import { importedEventUuid } from './import-uuid';
import { linesWithOffsets } from './lines';
import { progressBar } from './progress';

const HELP = 'import FILE.jsonl | - [--project ID] [--batch-size N] [--source NAME] [--restart] [--json]';

/**
 * Historical migration: a JSONL file (or stdin) of PostHog events sent in order through the same
 * ingestion pipeline as /batch/ with historical_migration=true, with a progress bar and a saved
 * position (resumes where an interrupted run stopped).
 */
export async function importCommand(runtime: Runtime, dataDir: string, argv: string[]) {
  const { values, positionals } = parse(argv, {
    project: { type: 'string' },
    'batch-size': { type: 'string' },
    source: { type: 'string' },
    restart: { type: 'boolean' },
  });
  const file = positionals[0];
  if (!file) throw new UsageError(HELP);
  const fromStdin = file === '-';
  const source = values.source ?? (fromStdin ? 'stdin' : resolve(file));
  const batchSize = Number(values['batch-size'] ?? 1000);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new UsageError('--batch-size must be a positive integer');
  const q = runtime.queries.access;
  const project = values.project ? await q.project(Number(values.project)) : await q.firstProjectOf((await q.firstOrganization())?.id ?? '');
  if (!project) throw new UsageError('no such project: run bootstrap first or pass --project');

  const store = importStateStore(dataDir, `${project.id}:${source}`);
  const saved = values.restart ? null : store.load();
  let state: ImportState = saved ?? { source: `${project.id}:${source}`, line: 0, offset: 0, events: 0, skipped: 0 };
  const total = fromStdin ? 0 : statSync(file).size;
  if (saved && !fromStdin && saved.offset > total) state = { ...state, line: 0, offset: 0, events: 0, skipped: 0 };
  // A file resumes by seeking; stdin cannot seek, so its first `line` lines are read and dropped.
  const input = fromStdin ? process.stdin : createReadStream(file, { start: state.offset });
  const resumedFrom = state.line;
  if (resumedFrom > 0) process.stderr.write(`resuming ${source} at line ${resumedFrom + 1}\n`);

  // Historical migration has its own budget (INGEST_HISTORICAL_EVENTS_PER_SECOND); over it, the
  // batch waits as long as the limiter says and is sent again.
  const admit = admitWithin(configuredLimits(loadConfig()));
  const send = async (body: Buffer) => {
    for (;;) {
      try {
        return await runtime.ingest.ingest({ body, contentType: 'application/json', query: {}, ip: undefined, maxDecompressedBytes: Number.MAX_SAFE_INTEGER, admit });
      } catch (err) {
        if (!(err instanceof RateLimitedError)) throw err;
        process.stderr.write(`\nrate limited (${err.limit}): resending in ${(err.retryAfterMs / 1000).toFixed(1)} s\n`);
        await sleep(err.retryAfterMs);
      }
    }
  };

  const bar = progressBar('import');
  let batch: unknown[] = [];
  let last = { line: state.line, offset: state.offset };
  const flush = async () => {
    if (batch.length) {
      const body = Buffer.from(JSON.stringify({ api_key: project.api_token, historical_migration: true, batch }));
      await send(body);
      state.events += batch.length;
      batch = [];
    }
    state = { ...state, line: last.line, offset: fromStdin ? 0 : last.offset };
    store.save(state);
    bar.update(fromStdin ? state.events : last.offset, fromStdin ? state.events : total);
  };

  for await (const line of linesWithOffsets(input, fromStdin ? 0 : state.offset, fromStdin ? 0 : state.line)) {
    if (fromStdin && line.number <= resumedFrom) continue;
    last = { line: line.number, offset: line.endOffset };
    if (!line.text.trim()) continue;
    let event: Record<string, unknown>;
    try {
      // The same boundary as the HTTP paths: lone surrogates become U+FFFD, deep nesting is refused.
      const text = wellFormedText(line.text);
      event = checkParsedJson(JSON.parse(text), text) as Record<string, unknown>;
      if (!event || typeof event !== 'object' || Array.isArray(event)) throw new Error('not an object');
    } catch (err) {
      state.skipped++;
      process.stderr.write(`\nline ${line.number}: skipped (${(err as Error).message})\n`);
      continue;
    }
    event.uuid ??= importedEventUuid(project.id, event);
    batch.push(event);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  bar.done(fromStdin ? state.events : total, fromStdin ? state.events : total);
  const summary = { project_id: project.id, source, events: state.events, skipped_lines: state.skipped, lines: state.line, resumed_from_line: resumedFrom };
  process.stdout.write(values.json ? JSON.stringify(summary) + '\n' : `imported ${state.events} events from ${state.line} lines (${state.skipped} skipped) into project ${project.id}\n`);
}
