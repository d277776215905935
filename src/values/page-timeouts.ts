/** Deadlines of the steps on a page (docs/explanation/how-a-render-runs.md). */
export interface PageTimeouts {
  /** Milliseconds a page may take to load and become ready. */
  loadMs: number;
  /** Milliseconds one frame may take to seek and draw. */
  frameMs: number;
}
