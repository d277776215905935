import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './cli';
import { writePatternVideo } from './media';

/** The late-drawing composition's size, length and row bands (CSS pixels, top inclusive, bottom exclusive). */
export const LATE_PAGE = {
  width: 320,
  height: 240,
  frames: 24,
  /** The frame at 0.5 s, when the late texts appear. */
  shown: 15,
  /** The per-frame text. */
  text: [0, 40] as const,
  /** The late paragraph and the element the timer creates. */
  late: [60, 140] as const,
  /**
   * A blue sprite a timer loads at 0.3 s (frame 9) and the animation callbacks draw on the canvas
   * once complete: from frame 9, since a frame's callbacks run once what its timers loaded is in.
   */
  sprite: { from: 9, x: 308, y: 48 },
  /** A red CSS background image the same timer gives an element, shown from frame 9, here. */
  background: { from: 9, x: 300, y: 158 },
};

/**
 * Writes into `dir` a composition that draws late, 320x240, 0.8 s at 30 fps: `tick <frame mod 10>`
 * written on every animation frame in monospace (a bundled web font stands in), a canvas bar
 * growing each frame and, once loaded, a sprite a timer loads at 0.3 s (`new Image()`), when the
 * same timer also gives an element a CSS background image, at 0.5 s a hidden paragraph in the web font "Late One" shown and an element
 * in "Late Two" created (both from the start with the variable `early`), and a 2 s test-pattern
 * video: a `<video>` in the page's source, or one a script adds. Returns `dir`.
 */
export function writeLateProject(dir: string, video: 'in-source' | 'by-script'): string {
  fs.mkdirSync(path.join(dir, 'fonts'), { recursive: true });
  const fontFile = (pkg: string, file: string) => path.join(REPO_ROOT, 'node_modules', '@fontsource-variable', pkg, 'files', file);
  fs.copyFileSync(fontFile('playfair-display', 'playfair-display-latin-wght-normal.woff2'), path.join(dir, 'fonts', 'one.woff2'));
  fs.copyFileSync(fontFile('oswald', 'oswald-latin-wght-normal.woff2'), path.join(dir, 'fonts', 'two.woff2'));
  writePatternVideo(path.join(dir, 'pattern.webm'));
  for (const [name, colour] of [['sprite', 'blue'], ['background', 'red']]) {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=${colour}:s=16x16`, '-frames:v', '1', path.join(dir, `${name}.png`)]);
  }
  const videoTag = video === 'in-source' ? '<video src="pattern.webm" muted></video>' : '';
  const videoScript =
    video === 'by-script' ? "var v = document.createElement('video'); v.src = 'pattern.webm'; v.muted = true; root.appendChild(v);" : '';
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html>
<html data-composition-variables='[{"id":"early","type":"boolean","label":"Shown from the start","default":false}]'><head><style>
@font-face{font-family:"Late One";src:url(fonts/one.woff2) format("woff2")}
@font-face{font-family:"Late Two";src:url(fonts/two.woff2) format("woff2")}
html,body{margin:0}
#root{position:relative;width:320px;height:240px;background:#fff}
#t{font-family:monospace;font-size:28px;position:absolute;left:4px;top:0;margin:0}
#c{position:absolute;left:0;top:40px}
#late{display:none;font:30px "Late One";position:absolute;left:4px;top:60px;margin:0}
.made{font:30px "Late Two";position:absolute;left:4px;top:100px}
#bg{position:absolute;left:280px;top:140px;width:40px;height:36px}
video{position:absolute;left:0;top:176px;width:320px;height:64px}
</style></head>
<body><div id="root" data-composition-id="late" data-width="${LATE_PAGE.width}" data-height="${LATE_PAGE.height}" data-duration="0.8" data-fps="30">
<p id="t"></p><canvas id="c" width="320" height="16"></canvas><p id="late">Shown late</p><div id="bg"></div>${videoTag}
</div>
<script>
var root = document.getElementById('root');
${videoScript}
function show() {
  document.getElementById('late').style.display = 'block';
  var made = document.createElement('div');
  made.className = 'made';
  made.textContent = 'Made by a timer';
  root.appendChild(made);
}
if (window.__vidkit.getVariables().early) show(); else setTimeout(show, 500);
var sprite = null;
setTimeout(function () {
  sprite = new Image();
  sprite.src = 'sprite.png';
  document.getElementById('bg').style.backgroundImage = 'url(background.png)';
}, 300);
var ctx = document.getElementById('c').getContext('2d');
function tick(ts) {
  var f = Math.round(ts * 30 / 1000);
  document.getElementById('t').textContent = 'tick ' + (f % 10);
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, 320, 16); ctx.fillStyle = '#c00'; ctx.fillRect(0, 0, f * 5, 16);
  if (sprite && sprite.complete) ctx.drawImage(sprite, 300, 0);
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
</script>
</body></html>
`,
  );
  return dir;
}

