// Copies <vidkit-player> (vidkit/player, built to dist/player/vidkit-player.js) into public/ so the
// preview page can load it; run at setup and deploy time, never committed.
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const app = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(app, 'node_modules', 'vidkit', 'dist', 'player', 'vidkit-player.js');
if (!existsSync(source)) {
  console.error(`copy-player: error: ${source} is missing; install vidkit (npm install) and build it`);
  process.exit(3);
}
copyFileSync(source, path.join(app, 'public', 'vidkit-player.js'));
