import type { Page } from 'puppeteer-core';

/** A dialog the page opened, and what it was answered. */
export interface PageDialog {
  kind: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  /** Its message; empty when it has none. */
  text: string;
  answer: 'dismissed' | 'answered "leave"';
  /** The frame of its time, when the page runtime answered it (at load: the first frame's). */
  frame?: number;
}

/** The function through which the page runtime reports the dialogs it answered (src/runtime/page/dialogs.ts). */
const REPORT_FUNCTION = '__vidkitDialog';

/**
 * Nobody answers a dialog in a render, and none may hold up a frame or a navigation. The page
 * runtime answers alert, confirm and prompt itself, as a dismissed dialog would, and reports them
 * here with the frame of their time; a dialog that still reaches the browser (one no runtime
 * answered, a beforeunload prompt) is dismissed here at once, a beforeunload prompt answered
 * "leave". `report` hears of each.
 */
export async function answerDialogs(page: Page, report: (dialog: PageDialog) => void): Promise<void> {
  page.on('dialog', (dialog) => {
    const kind = dialog.type();
    const leave = kind === 'beforeunload';
    report({ kind, text: dialog.message(), answer: leave ? 'answered "leave"' : 'dismissed' });
    (leave ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
  });
  await page.exposeFunction(REPORT_FUNCTION, (payload: string) => {
    const { kind, text, frame } = JSON.parse(payload) as Pick<PageDialog, 'kind' | 'text' | 'frame'>;
    report({ kind, text, frame, answer: 'dismissed' });
  });
}
