import type * as http from 'node:http';
import { badInput } from '../errors';

/** The most a request body of the preview may hold: a rows table of a few thousand lines. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Reads a JSON request body; bad input when it is larger than `limit` or not JSON. */
export async function readJsonBody(req: http.IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw badInput(`the request body is over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw badInput(`the request body is not JSON: ${(err as Error).message}`);
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}
