import { describe, expect, it } from 'vitest';
import { contracts, type NewEvent } from '../../../streams';
import { ContractedEventLog } from '../../../src/store/contracted-log';
import { SqliteEventLog } from '../../../src/adapters/sqlite/event-log';
import { validatedTransport, type IngestHandOver, type IngestTransport } from '../../../src/store/ingest-transport';

/** An in-memory broker: what was handed over, in order. */
function memoryTransport() {
  const handed: IngestHandOver[] = [];
  const transport: IngestTransport = {
    handOver: async (h) => {
      handed.push(h);
      return { position: null };
    },
    status: async () => ({ kind: 'nats', status: 'ok' }),
    close: async () => {},
  };
  return { transport, handed };
}

describe('a broker transport behind the event contracts', () => {
  const log = new ContractedEventLog(new SqliteEventLog(':memory:'), contracts);
  const context = { actor: { type: 'project_key' as const, projectId: 1 }, projectId: 1 };
  const handOver = (records: NewEvent[]): IngestHandOver => ({ streamId: 'ingest-1', projectId: 1, historical: false, records, context });

  it('refuses a record the log would refuse, handing nothing over', async () => {
    const { transport, handed } = memoryTransport();
    const validated = validatedTransport(transport, (r) => log.validate(r));
    await expect(validated.handOver(handOver([{ type: 'EventsCaptured', data: { events: [{ nonsense: true }] } }]))).rejects.toThrow();
    expect(handed).toEqual([]);
  });

  it('hands valid records over with their schema version', async () => {
    const { transport, handed } = memoryTransport();
    const validated = validatedTransport(transport, (r) => log.validate(r));
    await validated.handOver(handOver([{ type: 'IngestionWarningRaised', data: { type: 'w', source: 'capture', details: {} } }]));
    expect(handed).toHaveLength(1);
    expect(handed[0].records[0]).toMatchObject({ type: 'IngestionWarningRaised', schemaVersion: contracts.versionOf('IngestionWarningRaised') });
  });
});
