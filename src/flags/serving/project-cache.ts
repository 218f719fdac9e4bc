import type { MaybePromise } from '../../runtime/loading-cache';

/**
 * Values read from the ingestion read model by (project, key): person properties by distinct id,
 * group properties, the group type mapping, hash key overrides. Loaded asynchronously and served
 * from memory like `LoadingCache`: a held value (null, "no such person", included) is answered
 * synchronously, a miss returns one promise shared by every caller asking meanwhile. Any change to
 * a project's persons or groups (an ingestion batch applied) drops that project's values and its
 * loads in flight, whose possibly stale answers are then not kept. The bound keeps memory flat: past
 * it, everything held is dropped at once.
 */
export class ProjectCache<V extends NonNullable<unknown> | null> {
  private readonly byProject = new Map<number, Map<string, V>>();
  private readonly loading = new Map<number, Map<string, Promise<V>>>();
  private size = 0;

  constructor(
    private readonly load: (projectId: number, key: string) => Promise<V>,
    private readonly maxEntries = 200_000,
  ) {}

  get(projectId: number, key: string): MaybePromise<V> {
    const hit = this.byProject.get(projectId)?.get(key);
    return hit !== undefined ? hit : this.loadShared(projectId, key);
  }

  invalidate(projectId: number): void {
    this.loading.delete(projectId);
    const project = this.byProject.get(projectId);
    if (!project) return;
    this.size -= project.size;
    this.byProject.delete(projectId);
  }

  /** Drops every project's values and loads in flight (what changed is not known). */
  invalidateAll(): void {
    this.loading.clear();
    this.byProject.clear();
    this.size = 0;
  }

  private loadShared(projectId: number, key: string): Promise<V> {
    let inFlight = this.loading.get(projectId);
    const pending = inFlight?.get(key);
    if (pending) return pending;
    if (!inFlight) this.loading.set(projectId, (inFlight = new Map()));
    const loads = inFlight;
    // Current while the project's map of loads is the one it started in and still holds it.
    const current = () => this.loading.get(projectId) === loads && loads.get(key) === started;
    const finish = () => {
      loads.delete(key);
      if (loads.size === 0) this.loading.delete(projectId);
    };
    const started: Promise<V> = this.load(projectId, key).then(
      (value) => {
        if (current()) {
          finish();
          this.keep(projectId, key, value);
        }
        return value;
      },
      (err: unknown) => {
        if (current()) finish();
        throw err;
      },
    );
    loads.set(key, started);
    return started;
  }

  private keep(projectId: number, key: string, value: V): void {
    if (this.size >= this.maxEntries) {
      this.byProject.clear();
      this.size = 0;
    }
    let project = this.byProject.get(projectId);
    if (!project) this.byProject.set(projectId, (project = new Map()));
    project.set(key, value);
    this.size++;
  }
}
