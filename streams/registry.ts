import type { z } from 'zod';
import type { EventContract } from './contract';

export class EventSchemaError extends Error {
  constructor(
    readonly eventType: string,
    readonly issues: readonly { path: PropertyKey[]; message: string }[],
  ) {
    super(
      `event ${eventType} does not match its contract: ` +
        issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; '),
    );
    this.name = 'EventSchemaError';
  }
}

/** Every known event type; the log refuses what is not here and upcasts what is old. */
export class ContractRegistry {
  private readonly byType = new Map<string, EventContract>();

  constructor(contracts: readonly EventContract[]) {
    for (const c of contracts) {
      if (this.byType.has(c.type)) throw new Error(`event type ${c.type} registered twice`);
      this.byType.set(c.type, c);
    }
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  versionOf(type: string): number {
    return this.get(type).version;
  }

  /** Parses data against the current schema; the parsed (normalised) value is what gets stored. */
  validate(type: string, data: unknown): unknown {
    const result = (this.get(type).schema as z.ZodType).safeParse(data);
    if (!result.success) throw new EventSchemaError(type, result.error.issues);
    return result.data;
  }

  /** Lifts data stored at `fromVersion` to the current version, one step at a time. */
  upcast(type: string, fromVersion: number, data: unknown): unknown {
    const contract = this.byType.get(type);
    if (!contract || fromVersion >= contract.version) return data;
    let value = data;
    for (let v = fromVersion; v < contract.version; v++) {
      const step = contract.upcasters[v];
      if (!step) throw new Error(`no upcaster for ${type} from version ${v}`);
      value = step(value);
    }
    return value;
  }

  private get(type: string): EventContract {
    const c = this.byType.get(type);
    if (!c) throw new EventSchemaError(type, [{ path: [], message: 'unknown event type' }]);
    return c;
  }
}
