import {
  AccessDeniedError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { AppendTooLargeError, isUnreachable, translateAppendError } from '../../../../src/adapters/eventstore/errors';
import { ReachabilityMonitor } from '../../../../src/store/reachability-monitor';
import { WrongExpectedRevisionError } from '../../../../src/store/event-log';
import { StorageUnavailableError } from '../../../../src/store/storage-fault';

/** The shape @grpc/grpc-js rejects with, before the client converts it (appendToStream passes it on as is). */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });

describe('KurrentDB errors in the port’s terms', () => {
  it("turns the client's WrongExpectedVersionError into the port's typed conflict, with the caller's expectation", () => {
    const behind = new WrongExpectedVersionError(undefined, { streamName: 'pfx-s', expected: 1n, current: 3n });
    const err = translateAppendError(behind, 's', 1);
    expect(err).toBeInstanceOf(WrongExpectedRevisionError);
    expect(err).toMatchObject({ streamId: 's', expected: 1, actual: 3 });
    const missing = new WrongExpectedVersionError(undefined, { streamName: 's', expected: 'stream_exists', current: 'no_stream' });
    expect(translateAppendError(missing, 's', 'stream_exists')).toMatchObject({ streamId: 's', expected: 'stream_exists', actual: 'no_stream' });
    const exists = new WrongExpectedVersionError(undefined, { streamName: 's', expected: 'no_stream', current: 0n });
    expect(translateAppendError(exists, 's', 'no_stream')).toMatchObject({ expected: 'no_stream', actual: 0 });
  });

  it("names the server's MaxAppendSize when it refuses an append, which is not split", () => {
    const err = translateAppendError(MaxAppendSizeExceededError.fromMaxAppendSize(1048576), 'ingest-1', 'any');
    expect(err).toBeInstanceOf(AppendTooLargeError);
    expect(err).toMatchObject({ streamId: 'ingest-1', maxAppendSize: 1048576, message: expect.stringMatching(/MaxAppendSize of 1048576 bytes; raise/) });
  });

  it('passes any other error through unchanged', () => {
    for (const other of [new AccessDeniedError(), new StreamNotFoundError(undefined, 's'), new Error('boom'), grpcError(14, 'UNAVAILABLE')]) {
      expect(translateAppendError(other, 's', 0)).toBe(other);
    }
  });

  it('tells a server out of reach from a request the server refused', () => {
    for (const err of [
      new UnavailableError(),
      new DeadlineExceededError(),
      grpcError(14, 'UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1.'),
      grpcError(4, 'DEADLINE_EXCEEDED: Deadline exceeded'),
      grpcError(10, 'ABORTED: commit timeout'),
      new Error('Failed to discover after 10 attempts.'),
    ]) {
      expect(isUnreachable(err), String(err)).toBe(true);
    }
    for (const err of [
      new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: 1n }),
      new StreamNotFoundError(undefined, 's'),
      new AccessDeniedError(),
      new UnknownError(),
      grpcError(3, 'INVALID_ARGUMENT'),
      new Error('boom'),
      null,
      'text',
    ]) {
      expect(isUnreachable(err), String(err)).toBe(false);
    }
  });

  it('remembers the last unreachable operation as log_unreachable until one succeeds; other errors pass through unchanged', async () => {
    const monitor = new ReachabilityMonitor(isUnreachable);
    expect(monitor.fault()).toBeNull();
    const down = monitor.run(() => Promise.reject(new UnavailableError()));
    await expect(down).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(down).rejects.toMatchObject({ fault: { reason: 'log_unreachable' } });
    expect(monitor.fault()).toMatchObject({ reason: 'log_unreachable' });
    const conflict = new WrongExpectedRevisionError('s', 0, 1);
    await expect(monitor.run(() => Promise.reject(conflict))).rejects.toBe(conflict);
    expect(monitor.fault()).toMatchObject({ reason: 'log_unreachable' });
    expect(await monitor.run(async () => 7)).toBe(7);
    expect(monitor.fault()).toBeNull();
  });
});
