import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { secretFieldsOf } from '../destinations';

const PREFIX = 'enc:v1:';

/**
 * Destination credentials must be usable by the worker, so they cannot be hashed; they are sealed
 * (AES-256-GCM) before they enter the log and opened only when a run writes. The key lives outside
 * the log (`$DATA_DIR/secrets.key`), so a copy of the log alone reveals no password.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  }

  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** The config with every secret field of its type sealed (already sealed values stay as they are). */
  sealConfig(type: string, config: Record<string, unknown>): Record<string, unknown> {
    return this.mapSecrets(type, config, (v) => (typeof v === 'string' && v !== '' && !SecretBox.isSealed(v) ? this.seal(v) : v));
  }

  /** The config with its secret fields opened, for validation and for the destination. */
  openConfig(type: string, config: Record<string, unknown>): Record<string, unknown> {
    return this.mapSecrets(type, config, (v) => (SecretBox.isSealed(v) ? this.open(v) : v));
  }

  private mapSecrets(type: string, config: Record<string, unknown>, f: (v: unknown) => unknown) {
    const out = { ...config };
    for (const field of secretFieldsOf(type)) if (field in out) out[field] = f(out[field]);
    return out;
  }
}
