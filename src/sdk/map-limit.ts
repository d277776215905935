/** An array, or anything that hands out its items by index (a batch decoded on demand). */
export interface Indexed<T> {
  readonly length: number;
  at(index: number): T | undefined;
}

/**
 * Calls `fn` on every item with at most `limit` calls in flight, in item order; results come back
 * in item order. Once `signal` is aborted no further call starts, and the items never reached are
 * left out of the result.
 */
export async function mapWithLimit<T, R>(items: Indexed<T>, limit: number, fn: (item: T) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      results[index] = await fn(items.at(index)!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results.filter((_, index) => index in results);
}
