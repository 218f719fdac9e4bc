/**
 * Values read from the ingestion read model by (project, key): person properties by distinct id,
 * group properties, the group type mapping. A user evaluated again skips the lookup and its JSON
 * parse. Any change to a project's persons or groups (an ingestion batch applied) drops that
 * project's entries; the bound keeps memory flat.
 */
export class ProjectCache<V> {
  private readonly byProject = new Map<number, Map<string, V>>();
  private size = 0;

  constructor(
    private readonly load: (projectId: number, key: string) => V,
    private readonly maxEntries = 200_000,
  ) {}

  get(projectId: number, key: string): V {
    let project = this.byProject.get(projectId);
    const hit = project?.get(key);
    if (hit !== undefined) return hit;
    const value = this.load(projectId, key);
    if (this.size >= this.maxEntries) this.clear();
    if (!project) this.byProject.set(projectId, (project = new Map()));
    project.set(key, value);
    this.size++;
    return value;
  }

  invalidate(projectId: number): void {
    const project = this.byProject.get(projectId);
    if (!project) return;
    this.size -= project.size;
    this.byProject.delete(projectId);
  }

  clear(): void {
    this.byProject.clear();
    this.size = 0;
  }
}
