/** The `data` of a JSONCompact answer: each row an array in the SELECT's column order. */
export function compactData<T extends unknown[]>(text: string): T[] {
  return (JSON.parse(text) as { data: T[] }).data;
}
