/** The preview server's studio routes (src/preview/studio-routes.ts). */
const PREFIX = '/__vidkit/studio/';

/** An answer of the server that is not a success, with its message. */
export class ApiError extends Error {}

export async function getJson<T>(route: string, params: Record<string, string> = {}): Promise<T> {
  const query = new URLSearchParams(params).toString();
  return parse<T>(await fetch(`${PREFIX}${route}${query ? `?${query}` : ''}`, { cache: 'no-store' }));
}

/** POSTs JSON: the routes that render or write take nothing else (same-origin.ts). */
export async function postJson<T>(route: string, body: unknown = {}): Promise<T> {
  return parse<T>(await fetch(`${PREFIX}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

async function parse<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new ApiError(body.error ?? `HTTP ${res.status}`);
  return body;
}
