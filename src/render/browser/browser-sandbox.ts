import * as fs from 'node:fs';
import * as path from 'node:path';

/** Whether Chromium runs with its own sandbox on this machine, and why (docs/explanation/security-model.md). */
export interface SandboxProbe {
  on: boolean;
  /** How it runs, or why it cannot: for the render's info line and `vidkit doctor`. */
  detail: string;
}

/**
 * The user Chromium runs as inside a user namespace of its own when vidkit runs as root: Chromium
 * refuses its sandbox to root, and there it is not root (it holds no capability outside the
 * namespace, and the files it creates still belong to the user who ran vidkit).
 */
export const NAMESPACE_UID = 1000;

/** Whether this process runs as root, where Chromium's sandbox needs {@link namespaceCommand}. */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * The command that starts `executablePath` as an unprivileged user in a user namespace of its own
 * (util-linux `unshare`), for a root process; undefined when `unshare` is not installed.
 */
export function namespaceCommand(): { file: string; args: string[] } | undefined {
  const file = onPath('unshare');
  if (!file) return undefined;
  return { file, args: ['--user', `--map-user=${NAMESPACE_UID}`, `--map-group=${NAMESPACE_UID}`, '--'] };
}

/**
 * What decides whether the sandbox can start, for the probe's cache key: who runs vidkit, the
 * kernel's user-namespace switches, and the seccomp filter this process is under (a container's
 * filter may forbid namespaces whatever the kernel allows).
 */
export function sandboxConditions(): string {
  const read = (file: string, pattern?: RegExp) => {
    try {
      const text = fs.readFileSync(file, 'utf8');
      return (pattern ? pattern.exec(text)?.[1] : text.trim()) ?? '';
    } catch {
      return '-';
    }
  };
  return [
    `uid=${process.getuid?.() ?? '-'}`,
    `max_user_namespaces=${read('/proc/sys/user/max_user_namespaces')}`,
    `unprivileged_userns_clone=${read('/proc/sys/kernel/unprivileged_userns_clone')}`,
    `apparmor_restrict=${read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns')}`,
    `seccomp=${read('/proc/self/status', /^Seccomp:\s*(\d+)/m)}`,
    `unshare=${runsAsRoot() ? (onPath('unshare') ?? 'none') : '-'}`,
  ].join(',');
}

/** Variables that name no secret and that Chromium, its fonts or its GL drivers may read. */
const BROWSER_VARIABLES = /^(PATH|HOME|USER|LOGNAME|TMPDIR|TMP|TEMP|LANG|LANGUAGE|LC_[A-Z_]+|TZ|XDG_[A-Z_]+|LD_LIBRARY_PATH|DISPLAY|WAYLAND_DISPLAY|FONTCONFIG_[A-Z_]+|VK_[A-Z_]+|__EGL_[A-Z_]+|__GLX_[A-Z_]+|MESA_[A-Z_]+|LIBGL_[A-Z_]+|GALLIUM_DRIVER|NVIDIA_[A-Z_]+)$/;

/**
 * The environment Chromium starts with: only the variables it needs, so the page's process never
 * holds what vidkit's does (AWS credentials in the Lambda function, tokens, keys).
 */
export function browserEnvironment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && BROWSER_VARIABLES.test(name)) env[name] = value;
  return { ...env, ...extra };
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    const file = path.join(dir || '.', name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
