import type { Command } from 'commander';
import { examples } from '../help';
import { createReadStream, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { admitWithin, configuredLimits, RateLimitedError } from '../../ingest/rate-limited';
import { checkParsedJson, wellFormedText } from '../../ingest/json-limits';
import { UsageError } from '../errors';
import { importStateStore, type ImportState } from '../import-state';
import { importedEventUuid } from '../import-uuid';
import { linesWithOffsets } from '../lines';
import { existingFile, positiveInt } from '../options';
import { progressBar } from '../progress';
import { withRuntime, type Session } from '../session';

interface ImportOptions {
  project?: number;
  batchSize: number;
  source?: string;
  restart?: boolean;
  json?: boolean;
}

export function registerImport(program: Command) {
  program
    .command('import')
    .description(
      'historical migration: send a JSONL file of PostHog events (or stdin) in order through ingestion with historical_migration=true; resumable, progress on stderr',
    )
    .argument('<file>', 'a JSONL file, one event per line, or - for stdin', (path: string) => (path === '-' ? path : existingFile(path)))
    .option('--project <id>', 'the project to import into (default: the first project)', positiveInt)
    .option('--batch-size <n>', 'events per append', positiveInt, 1000)
    .option('--source <name>', 'the name the saved position is kept under (default: the absolute path, or stdin)')
    .option('--restart', 'ignore a saved position and start from the first line')
    .option('--json', 'print the summary as one JSON object')
    .addHelpText('after', examples('import events.jsonl --batch-size 5000', 'import - --source events-2024 < events-2024.jsonl'))
    .action((file: string, options: ImportOptions) => withRuntime((session) => importFile(session, file, options), { ingest: true, follow: false }));
}

/**
 * Historical migration: a JSONL file (or stdin) of PostHog events sent in order through the same
 * ingestion pipeline as /batch/ with historical_migration=true, with progress and a saved position
 * (resumes where an interrupted run stopped). The counts are what the log stored: an event the
 * pipeline turns into an ingestion warning is counted as a warning, not as an event.
 */
async function importFile({ runtime, config, dataDir }: Session, file: string, options: ImportOptions) {
  const fromStdin = file === '-';
  const source = options.source ?? (fromStdin ? 'stdin' : resolve(file));
  const q = runtime.queries.access;
  const project = options.project ? await q.project(options.project) : await q.firstProjectOf((await q.firstOrganization())?.id ?? '');
  if (!project) throw new UsageError(options.project ? `--project: no project ${options.project}` : 'no project: run bootstrap first or pass --project');

  const store = importStateStore(dataDir, `${project.id}:${source}`);
  const saved = options.restart ? null : store.load();
  const fresh: ImportState = { source: `${project.id}:${source}`, line: 0, offset: 0, events: 0, skipped: 0, warnings: 0 };
  let state: ImportState = saved ? { ...fresh, ...saved } : fresh;
  const total = fromStdin ? 0 : statSync(file).size;
  if (saved && !fromStdin && saved.offset > total) state = fresh;
  // A file resumes by seeking; stdin cannot seek, so its first `line` lines are read and dropped.
  const input = fromStdin ? process.stdin : createReadStream(file, { start: state.offset });
  const resumedFrom = state.line;
  if (resumedFrom > 0) process.stderr.write(`resuming ${source} at line ${resumedFrom + 1}\n`);

  // Historical migration has its own budget (INGEST_HISTORICAL_EVENTS_PER_SECOND); over it, the
  // batch waits as long as the limiter says and is sent again.
  const admit = admitWithin(configuredLimits(config));
  const send = async (events: unknown[], bytes: number) => {
    for (;;) {
      try {
        return await runtime.ingest.ingestParsed({ projectId: project.id, events, historicalMigration: true, bytes, admit });
      } catch (err) {
        if (!(err instanceof RateLimitedError)) throw err;
        process.stderr.write(`\nrate limited (${err.limit}): resending in ${(err.retryAfterMs / 1000).toFixed(1)} s\n`);
        await sleep(err.retryAfterMs);
      }
    }
  };

  const bar = progressBar('import');
  const startEvents = state.events;
  const fraction = (offset: number) => (fromStdin ? undefined : total > 0 ? offset / total : 1);
  let batch: unknown[] = [];
  let batchBytes = 0;
  let last = { line: state.line, offset: state.offset };
  // One batch is handed over while the next one's lines are read and parsed; batches still reach
  // the log one after the other, in the file's order, and the saved position follows the last
  // batch stored.
  let inFlight: Promise<void> = Promise.resolve();
  const flush = async () => {
    await inFlight;
    const events = batch;
    const bytes = batchBytes;
    const upto = last;
    batch = [];
    batchBytes = 0;
    inFlight = (async () => {
      if (events.length) {
        const result = await send(events, bytes);
        state.events += result.accepted;
        state.warnings += result.warnings;
      }
      state = { ...state, line: upto.line, offset: fromStdin ? 0 : upto.offset };
      store.save(state);
      bar.update(state.events - startEvents, fraction(upto.offset));
    })();
    // Awaited by the next flush (or at the end); a failure is not unhandled in between.
    inFlight.catch(() => undefined);
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
    batchBytes += line.text.length;
    if (batch.length >= options.batchSize) await flush();
  }
  await flush();
  await inFlight;
  bar.done(state.events - startEvents, fraction(total));
  const summary = {
    project_id: project.id,
    source,
    events: state.events,
    ingestion_warnings: state.warnings,
    skipped_lines: state.skipped,
    lines: state.line,
    resumed_from_line: resumedFrom,
  };
  const warned = state.warnings ? `, ${state.warnings} refused by ingestion (see ingestion_warnings)` : '';
  process.stdout.write(
    options.json ? JSON.stringify(summary) + '\n' : `imported ${state.events} events from ${state.line} lines (${state.skipped} skipped as not JSON${warned}) into project ${project.id}\n`,
  );
}
