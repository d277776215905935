/**
 * Where the page runtime asks the project server to mount a sub-composition host a page script
 * added (src/runtime/page/late-hosts.ts, src/render/serve/late-mount.ts). No imports: the page's
 * own tsconfig and the Node one both read it.
 */
export const LATE_MOUNT_PATH = '/__vidkit-mount';
