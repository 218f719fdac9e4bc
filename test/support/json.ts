/** Parsed JSON as JSON.parse types it: tests then assert on its shape. */
export type Json = ReturnType<typeof JSON.parse>;

export const json = (res: Response): Promise<Json> => res.json() as Promise<Json>;
