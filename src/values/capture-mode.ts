/** How frames are taken from the page. */
export type CaptureMode = 'beginframe' | 'screenshot';
