import type * as http from 'node:http';

/**
 * Whether a request that starts work or writes a file comes from a page of this server: its
 * `Origin` is the origin its `Host` names (the project server has already refused any Host but
 * its own, project-server.ts), and it sends JSON. A page of another site can make a browser send
 * a request here (a form, a fetch in no-cors mode), but the browser always names that site in
 * `Origin`, and cannot send JSON without asking first in a preflight this server never answers.
 */
export function fromOwnPage(req: http.IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (origin === undefined || host === undefined) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return origin === `http://${host}` && type === 'application/json';
}
