import * as path from 'node:path';
import { PACKAGE_ROOT } from '../package-info';

/**
 * The files of a new project: a composition that declares one variable of each type and animates
 * with all of them, its parts clips on three tracks so that the studio's timeline, canvas and
 * variables panel all show something on first open, the scripts to preview and render it, and a
 * README saying how.
 */
export function starterFiles(name: string, projectDir: string): Record<string, string> {
  return {
    'index.html': indexHtml(name),
    'package.json': `${JSON.stringify(packageJson(name, projectDir), null, 2)}\n`,
    'README.md': readme(name),
    '.gitignore': 'node_modules/\nout/\n.vidkit/\n',
  };
}

/**
 * The vidkit the project's scripts run: this one, linked by its path relative to the project (as
 * npm writes a local dependency). vidkit is not on the npm registry, where a version range would
 * look for it: it is installed from a checkout or from the tarballs `npm run pack` writes (docs/guide/install.md).
 */
function vidkitDependency(projectDir: string): string {
  return `file:${path.relative(projectDir, PACKAGE_ROOT).split(path.sep).join('/')}`;
}

function packageJson(name: string, projectDir: string): object {
  return {
    name: name.toLowerCase(),
    version: '0.1.0',
    private: true,
    scripts: {
      preview: 'vidkit preview .',
      render: `vidkit render . --output out/${name}.mp4`,
      types: 'vidkit types generate . --out variables.d.ts',
    },
    devDependencies: { vidkit: vidkitDependency(projectDir) },
  };
}

function readme(name: string): string {
  return `# ${name}

A vidkit composition: \`index.html\` is the video. \`npm install\` links the vidkit that created
it (\`package.json\`, devDependencies); its README is \`node_modules/vidkit/README.md\`, and
\`npx vidkit --help\` lists the commands.

\`\`\`sh
npm install
npm run preview   # opens the player with a panel of the variables below; saving reloads it
npm run render    # out/${name}.mp4
npx vidkit render . --variables '{"title":"Hello","accent":"#ff3366"}'
\`\`\`

The variables are declared on \`<html data-composition-variables>\`: the title is bound to its
element by \`data-var-text\`, the others are read with \`window.__vidkit.getVariables()\` in a
classic \`<script>\`. The bars, the title and the two lines under it are clips (\`data-start\`,
\`data-duration\`) on three tracks (\`data-track-index\`): in the preview, drag them on the
timeline, or move and edit the texts on the picture, and the studio writes the change to
\`index.html\` (its undo history is kept in \`.vidkit/\`). Every animation is a CSS animation,
so each frame is a function of time and the render is frame exact. \`npm run types\` writes the
TypeScript definitions of the variables to \`variables.d.ts\`.
`;
}

function indexHtml(name: string): string {
  return `<!DOCTYPE html>
<html lang="en" data-composition-variables='[
  {"id": "title", "type": "string", "label": "Title", "default": "Hello from ${name}"},
  {"id": "accent", "type": "color", "label": "Accent colour", "default": "#ff5a36"},
  {"id": "bars", "type": "number", "label": "Bars (3 to 12)", "default": 7},
  {"id": "showSubtitle", "type": "boolean", "label": "Show the subtitle", "default": true},
  {"id": "entrance", "type": "enum", "label": "Entrance", "options": ["rise", "zoom"], "default": "rise"}
]'>
<head>
<meta charset="utf-8">
<title>${name}</title>
<style>
  html, body { margin: 0; background: #101014; }
  #root { position: relative; width: 1280px; height: 720px; overflow: hidden; color: #fff;
    font-family: "Liberation Sans", "DejaVu Sans", Arial, sans-serif; background: #101014; }
  #bars { position: absolute; left: 120px; right: 120px; bottom: 0; height: 420px;
    display: flex; align-items: flex-end; gap: 18px; }
  .bar { flex: 1; background: var(--accent); border-radius: 10px 10px 0 0; opacity: 0.85;
    transform-origin: bottom; animation: grow 1.2s cubic-bezier(0.2, 0.8, 0.2, 1) both; }
  #title { position: absolute; left: 120px; top: 110px; margin: 0; font-size: 84px; font-weight: 700;
    animation: var(--entrance) 0.9s cubic-bezier(0.2, 0.8, 0.2, 1) 0.2s both; }
  #subtitle, #hint { position: absolute; left: 124px; top: 220px; margin: 0; font-size: 32px; color: #b8b8c8;
    animation: fade 0.6s ease-out both; }
  @keyframes grow { from { transform: scaleY(0); } to { transform: scaleY(1); } }
  @keyframes rise { from { transform: translateY(60px); opacity: 0; } to { transform: none; opacity: 1; } }
  @keyframes zoom { from { transform: scale(0.6); opacity: 0; } to { transform: none; opacity: 1; } }
  @keyframes fade { from { opacity: 0; } to { opacity: 1; } }
</style>
</head>
<body>
<div id="root" data-composition-id="${name}" data-width="1280" data-height="720" data-duration="4" data-fps="30">
  <div id="bars" data-start="0" data-duration="4" data-track-index="0"></div>
  <h1 id="title" data-start="0" data-duration="4" data-track-index="1" data-var-text="title">Hello from ${name}</h1>
  <p id="subtitle" data-start="0.9" data-duration="1.6" data-track-index="2">Edit index.html, or the variables in the preview panel.</p>
  <p id="hint" data-start="2.5" data-duration="1.5" data-track-index="2">Drag a clip on the timeline, or a text on the picture.</p>
</div>
<script>
  // Runs before the first frame: defaults merged with the caller's overrides.
  var v = window.__vidkit.getVariables();
  var root = document.getElementById("root");
  root.style.setProperty("--accent", v.accent);
  root.style.setProperty("--entrance", v.entrance === "zoom" ? "zoom" : "rise");
  document.getElementById("subtitle").hidden = !v.showSubtitle;
  var count = Math.min(12, Math.max(3, Math.round(Number(v.bars) || 7)));
  var bars = document.getElementById("bars");
  for (var i = 0; i < count; i++) {
    var bar = document.createElement("div");
    bar.className = "bar";
    bar.style.height = (30 + 70 * (i + 1) / count) + "%";
    bar.style.animationDelay = (0.4 + i * 0.12).toFixed(2) + "s";
    bars.appendChild(bar);
  }
</script>
</body>
</html>
`;
}
