import type { RowProgress, StudioJob } from '../studio-jobs';
import { getJson, postJson } from './api';
import { byId, formatBytes, formatSeconds, h } from './dom';
import { icon } from './icons';
import type { Studio } from './studio-state';

/**
 * Renders from the page: the Render button (with the format and quality beside it) queues the
 * composition shown with the values shown; the Renders tab lists the queue with each render's
 * frames, speed and time left, a cancel button, and the finished video to play and download, or
 * the error as `vidkit render` prints it. The tab says how many renders may wait.
 */
export function renderPanel(studio: Studio, showTab: () => void): void {
  const list = byId('jobs');
  const format = byId<HTMLSelectElement>('format');
  const quality = byId<HTMLSelectElement>('quality');
  const button = byId<HTMLButtonElement>('render');
  const problem = byId('render-problem');
  const badge = byId('jobs-badge');
  const jobs = new Map<number, StudioJob>();
  /** Each job's card, kept so that a playing video is not replaced by a progress update. */
  const cards = new Map<number, { el: HTMLElement; state: string; video?: HTMLVideoElement }>();

  button.addEventListener('click', async () => {
    problem.textContent = '';
    try {
      const job = await postJson<StudioJob>('jobs', {
        kind: 'video',
        composition: studio.page,
        variables: studio.values.values,
        format: format.value,
        quality: quality.value,
      });
      update(job);
      showTab();
    } catch (err) {
      problem.textContent = (err as Error).message;
      showTab();
    }
  });

  const update = (job: StudioJob) => {
    jobs.set(job.id, job);
    const card = cards.get(job.id);
    if (card && card.state === job.state && (job.state === 'done' || job.state === 'failed' || job.state === 'cancelled')) return;
    const el = jobCard(job, card?.video);
    if (card) card.el.replaceWith(el);
    else list.prepend(el);
    cards.set(job.id, { el, state: job.state, video: el.querySelector('video') ?? undefined });
    const active = [...jobs.values()].filter((j) => j.state === 'queued' || j.state === 'rendering').length;
    badge.textContent = active > 0 ? String(active) : '';
    badge.hidden = active === 0;
    list.classList.toggle('empty', jobs.size === 0);
  };

  studio.on('job', update);
  void getJson<StudioJob[]>('jobs').then((all) => all.forEach(update));
  void getJson<{ maxWaiting: number }>('queue').then(({ maxWaiting }) => {
    byId('queue-limit').textContent = `One render at a time; up to ${maxWaiting} more wait their turn (RENDER_MAX_WAITING), and one more is refused until a render finishes.`;
  });
}

function jobCard(job: StudioJob, keptVideo?: HTMLVideoElement): HTMLElement {
  const title = job.kind === 'rows' ? `${job.rowsFile} with ${job.composition}` : job.composition;
  const cancel = h(
    'button',
    {
      class: 'icon-button',
      attrs: { title: 'Cancel', 'aria-label': `Cancel render ${job.id}`, 'data-cancel': job.id },
      on: { click: () => void postJson(`jobs/${job.id}/cancel`).catch(() => undefined) },
    },
    icon('close'),
  );
  const p = job.progress;
  const share = p.totalFrames ? Math.min(1, p.frames / p.totalFrames) : 0;
  const running = job.state === 'queued' || job.state === 'rendering';
  return h(
    'li',
    { class: `job state-${job.state}`, attrs: { 'data-job': job.id, 'data-state': job.state } },
    h(
      'div',
      { class: 'job-head' },
      icon(job.kind === 'rows' ? 'table' : 'render'),
      h('span', { class: 'job-title', attrs: { title } }, title),
      h('span', { class: 'tag' }, `${job.format} · ${job.quality}`),
      running && cancel,
    ),
    running && h('div', { class: 'progress', attrs: { role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': Math.round(share * 100) } }, h('div', { attrs: { style: `width: ${share * 100}%` } })),
    h('div', { class: 'job-status' }, statusLine(job)),
    job.state === 'failed' && h('pre', { class: 'error' }, job.error ?? ''),
    job.state === 'done' && job.output && finished(job.output, job.bytes, keptVideo),
    job.rows && rowsList(job.rows),
  );
}

function statusLine(job: StudioJob): string {
  const p = job.progress;
  const frames = p.totalFrames ? `frame ${p.frames} of ${p.totalFrames}` : `${p.frames} frames`;
  const speed = p.fps ? ` · ${p.fps.toFixed(1)} fps` : '';
  const eta = p.etaSeconds !== null && job.state === 'rendering' ? ` · ${formatSeconds(p.etaSeconds).replace(/\.\d\d$/, '')} left` : '';
  const took = job.startedAt && job.finishedAt ? ` in ${((job.finishedAt - job.startedAt) / 1000).toFixed(1)} s` : '';
  switch (job.state) {
    case 'queued':
      return 'waiting for the render before it';
    case 'rendering':
      return p.totalFrames === null ? 'starting the browser' : `${frames}${speed}${eta}`;
    case 'done':
      return `done${took}${speed}`;
    case 'cancelled':
      return 'cancelled: nothing written';
    case 'failed':
      return `failed${took}`;
  }
}

/** The finished video: playable here, and a download link (files of other formats: the link only). */
function finished(output: string, bytes: number | undefined, kept?: HTMLVideoElement): HTMLElement {
  const url = `/${output.split('/').map(encodeURIComponent).join('/')}`;
  const playable = /\.(mp4|webm)$/i.test(output);
  const media = /\.gif$/i.test(output)
    ? h('img', { attrs: { src: url, alt: output } })
    : playable
      ? (kept ?? h('video', { attrs: { src: url, controls: true, preload: 'metadata', muted: true } }))
      : null;
  const name = output.split('/').pop()!;
  return h(
    'div',
    { class: 'job-output' },
    media,
    h(
      'div',
      { class: 'job-file' },
      h('code', { attrs: { title: output } }, output),
      bytes !== undefined && h('span', { class: 'muted' }, formatBytes(bytes)),
      h('a', { class: 'button', attrs: { href: url, download: name } }, icon('download'), 'Download'),
    ),
  );
}

function rowsList(rows: RowProgress[]): HTMLElement {
  return h(
    'ol',
    { class: 'job-rows' },
    ...rows.map((r) => {
      const share = r.totalFrames ? Math.min(1, r.frames / r.totalFrames) : r.state === 'rendered' || r.state === 'skipped' ? 1 : 0;
      const url = r.output ? `/${r.output.split('/').map(encodeURIComponent).join('/')}` : null;
      return h(
        'li',
        { class: `row-state-${r.state}`, attrs: { 'data-line': r.line, title: r.error ?? '' } },
        h('span', { class: 'row-key' }, r.outputKey ?? `line ${r.line}`),
        h('span', { class: 'progress small' }, h('span', { attrs: { style: `width: ${share * 100}%` } })),
        url ? h('a', { attrs: { href: url, target: '_blank', rel: 'noopener' } }, r.state) : h('span', {}, r.state),
      );
    }),
  );
}
