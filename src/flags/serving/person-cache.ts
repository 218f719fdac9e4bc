/**
 * Stored person properties by (project, distinct id), so a user evaluated again skips the lookup
 * and its JSON parse. Any change to a project's persons (an ingestion batch applied) drops that
 * project's entries; the bound keeps memory flat.
 */
export class PersonPropertiesCache {
  private readonly byProject = new Map<number, Map<string, Record<string, unknown> | null>>();
  private size = 0;

  constructor(
    private readonly load: (projectId: number, distinctId: string) => Record<string, unknown> | null,
    private readonly maxEntries = 200_000,
  ) {}

  get(projectId: number, distinctId: string): Record<string, unknown> | null {
    let project = this.byProject.get(projectId);
    const hit = project?.get(distinctId);
    if (hit !== undefined) return hit;
    const value = this.load(projectId, distinctId);
    if (this.size >= this.maxEntries) this.clear();
    if (!project) this.byProject.set(projectId, (project = new Map()));
    project.set(distinctId, value);
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
