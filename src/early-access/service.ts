import { randomUUID } from 'node:crypto';
import { earlyAccessFeatureStream, featureFlagStream, type Actor } from '../../streams';
import type { EarlyAccessQueries, EarlyAccessRow } from '../../projections/early-access-queries';
import type { FeatureFlagQueries, FeatureFlagRow } from '../../projections/feature-flags-queries';
import { DomainError, notFound, validationError } from '../errors';
import type { FlagService } from '../flags/management';
import { handleCommandAndWait } from '../runtime/read-your-writes';
import type { EventLog } from '../store/event-log';
import { earlyAccessDecider, type EarlyAccessCommand } from './decider';
import { ENROLLING_STAGES, newFeatureFlagFilters, releasedToAll, slugify, withEnrollment } from './enrollment';
import type { EarlyAccessCreate, EarlyAccessUpdate } from './input';

export interface EarlyAccessServiceDeps {
  log: EventLog;
  features: EarlyAccessQueries;
  flagQueries: FeatureFlagQueries;
  flags: FlagService;
  /** Read-your-writes over the named projections. */
  waitFor: (position: number, names: readonly string[]) => Promise<void>;
}

const KEY_TAKEN = 'There is already a feature flag with this key.';
/** PostHog's name for a feature's flag; the early-access projection links a feature to its flag by it. */
export const FLAG_NAME_PREFIX = 'Feature Flag for Early Access Feature ';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const enrolls = (stage: string) => (ENROLLING_STAGES as readonly string[]).includes(stage);

/** Commands over early access features and the flag each one owns. */
export class EarlyAccessService {
  /** Creates of one flag key in this process run one after another (see create). */
  private readonly keyQueue = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: EarlyAccessServiceDeps) {}

  /**
   * No orphan on failure. With a new flag: the feature is appended first (holding the key), the
   * flag second; the feature is visible only once its flag's creation follows it in the log (the
   * projection links them), so a crash between the two leaves nothing visible and no flag. If the
   * flag append is refused (the key was taken meanwhile) the feature is marked abandoned. Creates
   * of one key in this process are queued, so the loser of a race gets a 400 before appending.
   */
  async create(projectId: number, { fields, featureFlagId }: EarlyAccessCreate, actor: Actor): Promise<EarlyAccessRow> {
    const createdBy = actor.type === 'user' ? actor.id : null;
    const featureId = randomUUID();
    if (featureFlagId !== null) {
      const flag = await this.linkable(projectId, featureFlagId);
      const command: EarlyAccessCommand = { type: 'CreateEarlyAccessFeature', featureId, projectId, fields, flagKey: flag.key, flagCreated: true, createdBy };
      await this.run(projectId, featureId, command, actor);
      if (enrolls(fields.stage)) await this.deps.flags.update(projectId, flag.id, { filters: withEnrollment(flag.filters, flag.key, true) }, actor);
      return this.get(projectId, featureId);
    }
    // Never empty: the create schema refuses a name without letters or digits when no flag is linked.
    const key = slugify(fields.name);
    return this.queued(`${projectId}/${key}`, async () => {
      if (await this.deps.flagQueries.byKey(projectId, key)) throw validationError(KEY_TAKEN, 'name', 'unique');
      const command: EarlyAccessCommand = { type: 'CreateEarlyAccessFeature', featureId, projectId, fields, flagKey: key, flagCreated: false, createdBy };
      const position = await this.run(projectId, featureId, command, actor);
      const name = `${FLAG_NAME_PREFIX}${fields.name}`;
      try {
        await this.deps.flags.create(projectId, { key, name, filters: newFeatureFlagFilters(key, fields.stage), active: true }, actor);
      } catch (err) {
        // The log says whether this flag came after the feature (then the projection links them,
        // and the failure was only in waiting for the read model); otherwise the feature is void.
        const [first] = await this.deps.log.readStream(featureFlagStream(projectId, key), { maxCount: 1 });
        const ours = first?.type === 'FeatureFlagCreated' && first.position > position && (first.data as { name: string }).name === name;
        if (!ours) {
          await this.run(projectId, featureId, { type: 'AbandonEarlyAccessFeature', reason: err instanceof Error ? err.message : String(err) }, actor);
          if (err instanceof DomainError && err.message === KEY_TAKEN) throw validationError(KEY_TAKEN, 'name', 'unique');
        }
        throw err;
      }
      await this.deps.waitFor(await this.deps.log.head(), ['early_access', 'feature_flags']);
      return this.get(projectId, featureId);
    });
  }

  /**
   * compat §8 PATCH: the flag changes first (enrollment on when the stage enrolls, off when it
   * leaves; released to everyone on general availability with rollout_to_all), the feature
   * second, so retrying a PATCH whose second append failed completes it.
   */
  async update(projectId: number, id: string, { changes, rolloutToAll }: EarlyAccessUpdate, actor: Actor): Promise<EarlyAccessRow> {
    const current = await this.get(projectId, id);
    const stage = changes.stage ?? current.fields.stage;
    const flag = await this.deps.flagQueries.byId(projectId, current.flag_id);
    if (flag && !flag.deleted) {
      let filters = flag.filters;
      if (rolloutToAll && stage === 'general-availability') filters = releasedToAll(filters, flag.key);
      else if (changes.stage !== undefined && enrolls(stage) !== enrolls(current.fields.stage)) filters = withEnrollment(filters, flag.key, enrolls(stage));
      if (filters !== flag.filters) await this.deps.flags.update(projectId, flag.id, { filters }, actor);
    }
    await this.run(projectId, id, { type: 'UpdateEarlyAccessFeature', changes }, actor);
    return this.get(projectId, id);
  }

  /** Enrollment leaves the flag first (the flag stays, as in PostHog), the feature goes second. */
  async delete(projectId: number, id: string, actor: Actor): Promise<void> {
    const current = await this.get(projectId, id);
    const flag = await this.deps.flagQueries.byId(projectId, current.flag_id);
    if (flag && !flag.deleted && (flag.filters.super_groups !== undefined || flag.filters.feature_enrollment !== undefined))
      await this.deps.flags.update(projectId, flag.id, { filters: withEnrollment(flag.filters, flag.key, false) }, actor);
    await this.run(projectId, id, { type: 'DeleteEarlyAccessFeature' }, actor);
  }

  async get(projectId: number, id: string): Promise<EarlyAccessRow> {
    const row = UUID.test(id) ? await this.deps.features.byId(projectId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  /** compat §8: a linked flag must exist, be person-based, boolean, and have no feature yet. */
  private async linkable(projectId: number, flagId: number): Promise<FeatureFlagRow> {
    const attr = 'feature_flag_id';
    const flag = await this.deps.flagQueries.byId(projectId, flagId);
    if (!flag || flag.deleted) throw validationError(`Invalid pk "${flagId}" - object does not exist.`, attr, 'does_not_exist');
    if (await this.deps.features.ownerOfFlag(projectId, flag.key)) throw validationError(`Linked feature flag ${flag.key} already has a feature attached`, attr);
    if (flag.filters.aggregation_group_type_index != null) throw validationError('Group-based feature flags are not supported for Early Access Features', attr);
    const variants = (flag.filters.multivariate as { variants?: unknown[] } | null | undefined)?.variants;
    if (variants && variants.length > 0) throw validationError('Multivariate feature flags are not supported for Early Access Features', attr);
    return flag;
  }

  private async queued<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.keyQueue.get(key) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    this.keyQueue.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.keyQueue.get(key) === mine) this.keyQueue.delete(key);
    }
  }

  /** Appends and waits for the read model; answers the position of the last event (or -1 if none). */
  private async run(projectId: number, id: string, command: EarlyAccessCommand, actor: Actor): Promise<number> {
    const { result } = await handleCommandAndWait(this.deps.log, earlyAccessFeatureStream(id), earlyAccessDecider, command, { actor, projectId }, {
      waitFor: (position) => this.deps.waitFor(position, ['early_access']),
      maxAttempts: command.type === 'CreateEarlyAccessFeature' ? 1 : undefined,
    });
    return result?.lastPosition ?? -1;
  }
}
