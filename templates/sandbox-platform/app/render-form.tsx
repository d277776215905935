'use client';

import { useState } from 'react';

/** Posts `{"variables": ...}` to /api/render, then plays the stored MP4 and links it. */
export default function RenderForm() {
  const [variables, setVariables] = useState('{}');
  const [result, setResult] = useState<{ url?: string; error?: string }>({});
  const [busy, setBusy] = useState(false);

  async function render() {
    setBusy(true);
    setResult({});
    try {
      const res = await fetch('/api/render', { method: 'POST', body: JSON.stringify({ variables: JSON.parse(variables) }) });
      setResult(await res.json());
    } catch (err) {
      setResult({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section style={{ marginTop: 16, display: 'grid', gap: 8, maxWidth: 960 }}>
      <textarea rows={4} value={variables} onChange={(e) => setVariables(e.target.value)} aria-label="variables (JSON)" />
      <button onClick={render} disabled={busy}>{busy ? 'Rendering…' : 'Render MP4'}</button>
      {result.url && <video src={result.url} controls autoPlay muted loop width={480} />}
      {result.url && <a href={result.url}>{result.url}</a>}
      {result.error && <p role="alert">{result.error}</p>}
    </section>
  );
}
