import { Cli } from 'clipanion';

/** Placeholders that say more than the option's own name; every other value option shows `<its name>`. */
const PLACEHOLDERS: Record<string, string> = {
  '--frame': 'N',
  '--time': 'seconds',
  '--output': 'path',
  '--variables': 'json',
  '--variables-file': 'path',
  '--fps': 'fps',
  '--width': 'px',
  '--height': 'px',
  '--resolution': 'preset',
  '--load-timeout': 'seconds',
  '--frame-timeout': 'seconds',
  '--max-asset-bytes': 'bytes',
  '--epoch': 'date',
  '--gif-loop': 'count',
  '--hls-segment-seconds': 'seconds',
};

/**
 * clipanion 3 writes a value option's placeholder as `#0` in help and usage lines; this names it
 * instead: `--frame <N>`, `--composition <composition>`.
 */
export function namePlaceholders(text: string): string {
  return text.replace(/(--[a-z0-9-]+)((?:,-[a-zA-Z])?) #0/g, (_, name: string, short: string) => `${name}${short} <${PLACEHOLDERS[name] ?? name.slice(2)}>`);
}

export class VidkitCli extends Cli {
  protected getUsageByIndex(n: number, opts?: { detailed?: boolean; inlineOptions?: boolean }) {
    const { usage, options } = super.getUsageByIndex(n, opts);
    return { usage: namePlaceholders(usage), options: options.map((o) => ({ ...o, definition: namePlaceholders(o.definition) })) };
  }
}
