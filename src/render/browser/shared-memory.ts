import * as fs from 'node:fs';

/** Where Linux keeps shared memory as files. */
export const SHARED_MEMORY_DIR = '/dev/shm';

/** Lambda and some sandboxes have no writable /dev/shm; Chromium then keeps shared memory in /tmp. */
export function hasSharedMemory(): boolean {
  try {
    fs.accessSync(SHARED_MEMORY_DIR, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
