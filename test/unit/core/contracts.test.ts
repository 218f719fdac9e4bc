import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { join } from 'node:path';
import { ContractRegistry, EventSchemaError, contracts, defineEvent } from '../../../streams';
import { ContractedEventLog } from '../../../src/store/contracted-log';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { tempDir } from '../../support/temp-dir';

const dir = tempDir('contracts-');
const ctx = { context: { actor: { type: 'system' as const } } };

describe('event contracts', () => {
  it('refuses an append whose data does not match its schema, and writes nothing', async () => {
    const log = new ContractedEventLog(new SqliteEventLog(join(dir, 'a.sqlite')), contracts);
    const bad = log.append('project-1', [{ type: 'ProjectCreated', data: { id: 'one', organizationId: 'x', name: '', apiToken: 'nope' } }], ctx);
    await expect(bad).rejects.toBeInstanceOf(EventSchemaError);
    await expect(bad).rejects.toThrow(/id: .*number/);
    expect(await log.head()).toBe(0);
    await log.close();
  });

  it('refuses an unknown event type', async () => {
    const log = new ContractedEventLog(new SqliteEventLog(join(dir, 'b.sqlite')), contracts);
    await expect(log.append('x', [{ type: 'NoSuchEvent', data: {} }], ctx)).rejects.toThrow(/unknown event type/);
    await log.close();
  });

  it('stores the schema version and upcasts old events when read, without rewriting them', async () => {
    const v1 = new ContractRegistry([defineEvent('Renamed', z.object({ name: z.string() }))]);
    const v3 = new ContractRegistry([
      defineEvent('Renamed', z.object({ fullName: z.string(), source: z.string() }), {
        version: 3,
        upcasters: {
          1: (d) => ({ fullName: (d as { name: string }).name }),
          2: (d) => ({ ...(d as object), source: 'legacy' }),
        },
      }),
    ]);
    const path = join(dir, 'c.sqlite');
    const old = new ContractedEventLog(new SqliteEventLog(path), v1);
    await old.append('r', [{ type: 'Renamed', data: { name: 'Ada' } }], ctx);
    await old.close();
    const raw = new SqliteEventLog(path);
    const now = new ContractedEventLog(raw, v3);
    const [event] = await now.readStream('r');
    expect(event.data).toEqual({ fullName: 'Ada', source: 'legacy' });
    expect(event.schemaVersion).toBe(3);
    expect((await raw.readAll())[0]).toMatchObject({ schemaVersion: 1, data: { name: 'Ada' } });
    await now.append('r', [{ type: 'Renamed', data: { fullName: 'Bob', source: 'api' } }], ctx);
    expect((await raw.readAll())[1].schemaVersion).toBe(3);
    await now.close();
  });

  it('refuses to register a type twice', () => {
    const e = defineEvent('Twice', z.object({}));
    expect(() => new ContractRegistry([e, e])).toThrow(/twice/);
  });
});
