/** The preview page: the player, the variables panel, and the scripts that serve both. */
export function previewPageHtml(title: string): string {
  const t = escapeHtml(title);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${t} · vidkit preview</title>
<style>
  body { margin: 0; display: flex; gap: 20px; padding: 20px; background: #0f1014; color: #e8e8ee;
    font: 14px/1.4 system-ui, sans-serif; align-items: flex-start; }
  main { flex: 1; min-width: 0; }
  main vidkit-player { width: 100%; }
  aside { width: 300px; flex: none; }
  h1 { font-size: 16px; margin: 0 0 12px; }
  label { display: block; margin: 0 0 12px; }
  label span { display: block; font-size: 12px; color: #a0a0b0; margin-bottom: 4px; }
  input[type=text], input[type=number], select { width: 100%; box-sizing: border-box; padding: 6px;
    background: #1b1c22; color: inherit; border: 1px solid #33343c; border-radius: 4px; }
  .color { display: flex; gap: 6px; }
  .color input[type=color] { width: 44px; height: 32px; padding: 0; border: 0; background: none; }
  .error { color: #ff8080; white-space: pre-wrap; }
  code { display: block; font-size: 11px; color: #a0a0b0; word-break: break-all; margin-top: 16px; }
</style>
<script type="module" src="/__vidkit/player.js"></script>
<script type="module" src="/__vidkit/panel.js"></script>
</head>
<body>
<main><vidkit-player id="player" src="/index.html" controls muted></vidkit-player></main>
<aside>
  <h1>${t}</h1>
  <form id="variables" autocomplete="off"></form>
  <div id="problem" class="error"></div>
  <code id="command"></code>
</aside>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
