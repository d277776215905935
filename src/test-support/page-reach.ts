import type { PageReach } from '../runtime/protocol';

/** What the variables reach in a 100-frame page: the name at 0-5 and 50-60, the photo at 20-30; `over` replaces fields. */
export function pageReach(over: Partial<PageReach> = {}): PageReach {
  return {
    reads: [],
    bindings: [
      { id: 'name', element: '<span>', frames: [[0, 5], [50, 60]] },
      { id: 'photo', element: '<img#photo>', frames: [[20, 30]] },
    ],
    css: [],
    unbounded: null,
    whole: null,
    ...over,
  };
}
