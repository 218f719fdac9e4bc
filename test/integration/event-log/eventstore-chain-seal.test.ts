import { describe, expect, it } from 'vitest';
import { EventStoreEventLog } from '../../../src/adapters/eventstore';
import { verifyChain } from '../../../src/app/verify-chain';
import { KurrentStandIn } from '../../support/kurrent-stand-in';

const ctx = { context: { actor: { type: 'system' as const } } };

describe('KurrentDB (stand-in): the chain formed by readers, sealed by a signed checkpoint', () => {
  it('a fresh handle forms the same chain; a scavenged stream breaks the sealed head', async () => {
    const server = new KurrentStandIn();
    const writer = EventStoreEventLog.over(server.client());
    for (let i = 0; i < 6; i++) await writer.append(i % 3 === 0 ? 'doomed' : 'kept', [{ type: 'Tested', data: { i } }], ctx);
    const head = await writer.chainHead();
    // Another process's handle, which has read nothing yet, walks the log to the same head.
    const other = EventStoreEventLog.over(server.client());
    expect(await other.chainHead()).toEqual(head);
    const checked = await verifyChain(other);
    expect(checked).toMatchObject({ ok: true, checked: 6, head });
    const checkpoint = { position: head.position, hash: head.hash!, signedAt: '2026-11-29T06:00:00.000Z' };

    server.scavengeStream('doomed');
    const after = EventStoreEventLog.over(server.client());
    // The chain of what is left still checks on its own: only the seal shows what went.
    expect((await verifyChain(after)).ok).toBe(true);
    const sealed = await verifyChain(after, { checkpoint });
    expect(sealed.failure).toMatchObject({ position: head.position, reason: expect.stringMatching(/no longer passes through/) });
    await Promise.all([writer.close(), other.close(), after.close()]);
  });
});
