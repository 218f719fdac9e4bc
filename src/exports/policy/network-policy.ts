import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { ConfigError } from '../../config';
import { addressBytes, inCidr, nonPublicKind, parseCidr, type Cidr } from './ip-address';

const lookupAll = promisify(dnsLookup);

/** How long a create/PATCH waits for DNS before accepting the name unchecked (runs check it). */
const CHECK_TIMEOUT_MS = 3000;

/** A destination host the policy refuses; the worker fails the run, the API answers 400. */
export class TargetRefusedError extends Error {
  readonly code = 'EXPORT_TARGET_REFUSED';
  constructor(readonly host: string, readonly kind: string) {
    super(`host '${host}' resolves to a ${kind} address, which batch exports may not reach (an operator can allow it with EXPORT_ALLOWED_HOSTS)`);
    this.name = 'TargetRefusedError';
  }
}

/** `[::1]` (URL form) and `Example.COM.` name the same hosts as `::1` and `example.com`. */
export const normalizeHost = (host: string) => host.trim().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Where network destinations (HTTP, S3 `endpoint_url`, Postgres) may connect: public addresses,
 * plus the host names and CIDRs the operator lists in EXPORT_ALLOWED_HOSTS. Every address a name
 * resolves to must pass (one private answer among public ones is enough to refuse), and sockets
 * connect through `lookup`, which checks the very answer they use: no gap for DNS to change in
 * between a check and a connect.
 */
export class NetworkPolicy {
  private constructor(
    private readonly hosts: ReadonlySet<string>,
    private readonly cidrs: readonly Cidr[],
  ) {}

  static readonly NONE = new NetworkPolicy(new Set(), []);

  /** EXPORT_ALLOWED_HOSTS: comma-separated host names, addresses and CIDRs. */
  static parse(text: string): NetworkPolicy {
    const hosts = new Set<string>();
    const cidrs: Cidr[] = [];
    for (const raw of text.split(',').map((s) => s.trim()).filter(Boolean)) {
      const entry = normalizeHost(raw);
      if (isIP(entry) || entry.includes('/')) {
        const cidr = parseCidr(entry);
        if (!cidr) throw new ConfigError(`invalid configuration: EXPORT_ALLOWED_HOSTS=${JSON.stringify(text)}: '${raw}' is not an address or CIDR`);
        cidrs.push(cidr);
      } else if (/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(entry)) {
        hosts.add(entry);
      } else {
        throw new ConfigError(`invalid configuration: EXPORT_ALLOWED_HOSTS=${JSON.stringify(text)}: '${raw}' is not a host name, address or CIDR`);
      }
    }
    return new NetworkPolicy(hosts, cidrs);
  }

  /** Why `address` (reached through `host`) is refused, or null when it may be used. */
  refusal(host: string, address: string): string | null {
    if (this.hosts.has(normalizeHost(host))) return null;
    const kind = nonPublicKind(address);
    // Stryker disable next-line ConditionalExpression: equivalent, a shortcut: the kind returned below is this null
    if (kind === null) return null;
    const bytes = addressBytes(address);
    if (bytes && this.cidrs.some((c) => inCidr(bytes, c))) return null;
    return kind;
  }

  private refuseAny(host: string, addresses: readonly string[]): void {
    for (const address of addresses) {
      const kind = this.refusal(host, address);
      if (kind !== null) throw new TargetRefusedError(host, kind);
    }
  }

  /**
   * The addresses `host` resolves to, every one checked. A name that does not resolve is
   * reported as DNS reports it (ENOTFOUND): the caller decides whether that matters.
   */
  async resolve(host: string): Promise<string[]> {
    const name = normalizeHost(host);
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, a shortcut: the resolver answers an address literal with itself
    if (isIP(name)) {
      this.refuseAny(host, [name]);
      return [name];
    }
    // Stryker disable next-line BooleanLiteral: equivalent, verbatim only orders the answers, and every one is checked
    const answers = await lookupAll(name, { all: true, verbatim: true });
    const addresses = answers.map((a) => a.address);
    this.refuseAny(host, addresses);
    return addresses;
  }

  /**
   * Run-time check of a host before connecting: an address literal (which no lookup sees) must
   * pass now; a name is checked by `lookup` when the socket resolves it.
   */
  checkLiteral(host: string): void {
    const name = normalizeHost(host);
    if (isIP(name)) this.refuseAny(host, [name]);
  }

  /**
   * The create/PATCH check: refused only when the name resolves somewhere refused now. A name
   * that does not resolve (or not within CHECK_TIMEOUT_MS, so a slow resolver cannot hold a
   * request) is accepted: it may be set up later, and every connection checks again.
   */
  async checkHost(host: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, CHECK_TIMEOUT_MS)));
    try {
      await Promise.race([this.resolve(host), timeout]);
    } catch (err) {
      if (err instanceof TargetRefusedError) throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A `lookup` for net/http/https sockets: resolves, refuses the connection when any answer is
   * refused, and hands the socket exactly the answers it checked. IP literals never reach a
   * lookup, so callers check those with `resolve` before connecting.
   */
  readonly lookup = (hostname: string, options: { family?: number; all?: boolean } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    dnsLookup(hostname, { family: opts.family ?? 0, all: true, verbatim: true }, (err, answers) => {
      if (err) return callback(err, []);
      try {
        if (answers.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        this.refuseAny(hostname, answers.map((a) => a.address));
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, []);
      }
      if (opts.all) callback(null, answers);
      else callback(null, answers[0].address, answers[0].family);
    });
  };
}
