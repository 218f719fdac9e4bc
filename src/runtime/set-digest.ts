import { createHash } from 'node:crypto';

const MOD = 1n << 128n;

/**
 * A digest of a multiset of rows that does not depend on their order: the sum, modulo 2^128, of
 * each row's sha256 (its first 16 bytes), with the row count. Two engines that return rows in
 * different orders (ClickHouse has no cheap total order over a table) digest alike when they hold
 * the same rows.
 */
export class SetDigest {
  private sum = 0n;
  private count = 0;

  add(row: readonly unknown[]): void {
    const hash = createHash('sha256').update(JSON.stringify(row)).digest();
    this.sum = (this.sum + hash.readBigUInt64BE(0) * (1n << 64n) + hash.readBigUInt64BE(8)) % MOD;
    this.count++;
  }

  value(): string {
    return `${this.count}:${this.sum.toString(16).padStart(32, '0')}`;
  }
}

/** The analytics tables' rows as every engine's digest reads them (one encoding, whatever the storage). */
export const digestRows = {
  event: (r: {
    projectId: number;
    uuid: string;
    event: string;
    distinctId: string;
    personId: string | null;
    timestamp: string;
    receivedAt: string;
    properties: string;
    elementsChain: string;
    groups: readonly (string | null)[];
    historicalMigration: boolean;
  }): unknown[] => [r.projectId, r.uuid, r.event, r.distinctId, r.personId, r.timestamp, r.receivedAt, r.properties, r.elementsChain, ...r.groups, r.historicalMigration],
  person: (projectId: number, distinctId: string, personId: string): unknown[] => [projectId, distinctId, personId],
};
