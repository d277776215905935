import type * as http from 'node:http';
import { ExitCode, VidkitError, badInput } from '../../errors';
import { bytesText, checkJsonDepth } from '../../options/input-limits';

/** The most a request body of the preview may hold: a rows table of a few thousand lines. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A body over the limit: answered 413, not 400, so a client knows to send less rather than fix its JSON. */
export class BodyTooLarge extends VidkitError {
  constructor(limit: number) {
    super(`the request body is over the limit of ${bytesText(limit)}`, { exitCode: ExitCode.BadInput });
    this.name = 'BodyTooLarge';
  }
}

/** Reads a JSON request body; bad input when it is larger than `limit`, nested too deep or not JSON. */
export async function readJsonBody(req: http.IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to its end even when over the limit, keeping none of the rest: the client still reads the answer.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  if (size > limit) throw new BodyTooLarge(limit);
  const text = Buffer.concat(chunks).toString('utf8');
  checkJsonDepth(text, 'the request body');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badInput(`the request body is not JSON: ${(err as Error).message}`);
  }
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}
