import type * as http from 'node:http';
import { errorMessage } from '../../errors';
import { projectReader } from '../../composition/project-page';
import { mountLateHost } from '../../composition/sub-compositions';
import { LATE_MOUNT_PATH } from '../../runtime/late-mount-path';
import { BodyTooLarge, readJsonBody, sendJson } from './http-json';


/** The most a late host's request may hold: its element's markup, the page's composition ids. */
export const LATE_MOUNT_MAX_BYTES = 1024 * 1024;

interface LateMountRequest {
  page: string;
  host: string;
  taken: string[];
}

function isRequest(body: unknown): body is LateMountRequest {
  const b = body as Partial<LateMountRequest> | null;
  return (
    typeof b === 'object' && b !== null &&
    typeof b.page === 'string' && typeof b.host === 'string' &&
    Array.isArray(b.taken) && b.taken.every((id) => typeof id === 'string')
  );
}

/**
 * Answers `POST /__vidkit-mount` with the mounted host (`{html, scripts}`), read from the project
 * as every page is: 400 naming what is wrong with the host (a file that is not in the project),
 * 413 over {@link LATE_MOUNT_MAX_BYTES}. Returns whether the request was this one.
 */
export function serveLateMount(projectDir: string, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== 'POST' || req.url !== LATE_MOUNT_PATH) return false;
  readJsonBody(req, LATE_MOUNT_MAX_BYTES).then(
    (body) => {
      if (!isRequest(body)) return sendJson(res, 400, { error: 'a late mount takes {page, host, taken}' });
      try {
        return sendJson(res, 200, mountLateHost(body.host, body.page, projectReader(projectDir), body.taken));
      } catch (err) {
        return sendJson(res, 400, { error: errorMessage(err) });
      }
    },
    (err: unknown) => sendJson(res, err instanceof BodyTooLarge ? 413 : 400, { error: errorMessage(err) }),
  );
  return true;
}
