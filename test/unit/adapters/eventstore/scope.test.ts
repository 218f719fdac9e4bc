import { describe, expect, it } from 'vitest';
import { clientConnectionString, connectionHosts } from '../../../../src/adapters/eventstore/connection';
import { isSystemEvent, LogScope } from '../../../../src/adapters/eventstore/filter';

describe('the part of $all that is the log', () => {
  it('without a prefix: every non-system stream, filtered on the server by event type', () => {
    const scope = new LogScope();
    expect(scope.filter()).toEqual({ filterOn: 'eventType', regex: '^[^$].*', checkpointInterval: 1 });
    const regex = new RegExp((scope.filter() as { regex: string }).regex);
    expect(regex.test('$metadata')).toBe(false);
    expect(regex.test('EventsCaptured')).toBe(true);
    expect(scope.serverStream('project-1')).toBe('project-1');
    expect(scope.portStream('project-1')).toBe('project-1');
    expect(scope.includes({ type: 'EventsCaptured', streamId: 'ingest-1' })).toBe(true);
    // System event types, system streams, and the system projections' links are not the log's.
    for (const e of [
      { type: '$metadata', streamId: '$$project-1' },
      { type: '$>', streamId: '$ce-project' },
      { type: '$statsCollected', streamId: '$stats-127.0.0.1:2113' },
      { type: 'Tested', streamId: '$by-hand' },
      { type: '$epoch', streamId: 'anything' },
    ]) {
      expect(scope.includes(e), JSON.stringify(e)).toBe(false);
      expect(isSystemEvent(e)).toBe(true);
    }
  });

  it('with a prefix: the streams that start with it, filtered on the server by stream name; names map one to one', () => {
    const scope = new LogScope('tenant_a-');
    expect(scope.filter()).toEqual({ filterOn: 'streamName', prefixes: ['tenant_a-'], checkpointInterval: 1 });
    expect(scope.serverStream('project-1')).toBe('tenant_a-project-1');
    expect(scope.portStream('tenant_a-project-1')).toBe('project-1');
    expect(scope.portStream('tenant_b-project-1')).toBeNull();
    expect(scope.includes({ type: 'Tested', streamId: 'tenant_a-s' })).toBe(true);
    expect(scope.includes({ type: 'Tested', streamId: 'tenant_b-s' })).toBe(false);
    expect(scope.includes({ type: '$metadata', streamId: 'tenant_a-s' })).toBe(false);
  });

  it('refuses a prefix that would reach system streams or that a filter would misread', () => {
    for (const bad of ['$ce-', 'a b', 'x'.repeat(65), 'a/b', 'a?b']) expect(() => new LogScope(bad), bad).toThrow(/invalid stream prefix/);
  });
});

describe('connection strings', () => {
  it('hands the 6.x client the esdb names of the kurrentdb schemes, settings unchanged', () => {
    expect(clientConnectionString('esdb://127.0.0.1:2113?tls=false')).toBe('esdb://127.0.0.1:2113?tls=false');
    expect(clientConnectionString('kurrentdb://admin:changeit@a:2113,b:2113?tls=false')).toBe('esdb://admin:changeit@a:2113,b:2113?tls=false');
    expect(clientConnectionString('KurrentDB+Discover://cluster.example:2113')).toBe('esdb+discover://cluster.example:2113');
    expect(() => clientConnectionString('postgres://127.0.0.1/db')).toThrow(/expected an esdb:\/\//);
    expect(() => clientConnectionString('constructor://127.0.0.1')).toThrow(/expected an esdb:\/\//);
  });

  it('names the hosts of a log without its credentials or settings', () => {
    expect(connectionHosts('esdb://admin:changeit@Node1:2113,node2:2113/?tls=false')).toBe('node1:2113,node2:2113');
    expect(connectionHosts('kurrentdb://127.0.0.1:2113?tls=false')).toBe('127.0.0.1:2113');
  });
});
