// What the page runtime reads and writes on `window` besides `__vidkit` and `__vidkitBoot`
// (../protocol.ts): the renderer's DevTools bindings, HyperFrames' globals, and the libraries a
// page may load, whose objects the runtime only probes (typed loosely: any version may be there).
export type PageLibrary = any;

declare global {
  interface Window {
    /** The renderer's binding for dialogs (page-dialogs.ts); absent in the player. */
    __vidkitDialog?: (payload: string) => void;
    /** The renderer's binding for video pictures (page-video-frames.ts). */
    __vidkitVideoFrames: (payload: string) => void;
    __vidkitSubComposition: (id: string, compositionId: string | null, variables: unknown, run: Function) => void;
    __timelines?: Record<string, PageLibrary> | PageLibrary[];
    __hf?: PageLibrary;
    __hyperframes: { getVariables(): Record<string, unknown> };
    __hfVariables: Record<string, unknown>;
    __HF_VIRTUAL_TIME__: { originalSetTimeout: typeof setTimeout };
    __HF_PAGE_SIDE_COMPOSITING__: boolean;
    __hf_page_composite_pending?: unknown;
    __hf_page_composite_prepare?: () => unknown;
    __hfThreeTime: number;
    __hfTypegpuTime: number;
    __hfAnime?: PageLibrary[];
    __hfLottie?: PageLibrary[];
    anime?: PageLibrary;
    lottie?: PageLibrary;
    gsap?: PageLibrary;
    THREE?: PageLibrary;
    GPUQueue?: PageLibrary;
  }
}
