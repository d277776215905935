/**
 * A composition's body scripts run once its fonts have loaded, as in HyperFrames: the project
 * server marks each one with {@link AFTER_FONTS_TYPE} (src/render/serve/after-fonts.ts), so the
 * parser leaves it, and the page runtime (src/runtime/page/after-fonts.ts) runs them all when the
 * document is parsed and its fonts are in, so that text a script measures has its own font's size.
 * No imports: the page's own tsconfig and the Node one both read it, and the served page's fallback
 * is {@link runMarkedScripts}'s own source.
 */
export const AFTER_FONTS_TYPE = 'text/vidkit-after-fonts';
export const AFTER_FONTS_MODULE_TYPE = 'text/vidkit-after-fonts+module';
/** Set by the page runtime when it runs the marked scripts itself; the fallback then does nothing. */
export const AFTER_FONTS_CLAIM = '__vidkitAfterFontsClaimed';

/**
 * Runs the marked scripts of `doc` as the parser would have, one after another: the classic ones
 * first, in document order, each with a `src` waited for unless `async`; then modules and
 * `defer` scripts with a `src`, in document order. Self-contained (its source is sent as the page's
 * fallback): it reads no name from outside its body, and binds no function to a name, which a
 * transpiler keeping names would wrap in a helper the page does not have.
 */
export function runMarkedScripts(doc: Document): Promise<void> {
  const classicType = 'text/vidkit-after-fonts';
  const moduleType = 'text/vidkit-after-fonts+module';
  const marked = Array.prototype.slice.call(doc.querySelectorAll('script[type="' + classicType + '"], script[type="' + moduleType + '"]')) as HTMLScriptElement[];
  const isLate = marked.map(function (el) { return el.type === moduleType || (el.hasAttribute('defer') && el.hasAttribute('src')); });
  const queue = marked.filter(function (el, i) { return !isLate[i]; }).concat(marked.filter(function (el, i) { return isLate[i]; }));
  return queue.reduce(function (previous: Promise<void>, el: HTMLScriptElement): Promise<void> {
    return previous.then(function (): Promise<void> | undefined {
      if (!el.isConnected) return undefined;
      const script = doc.createElement('script');
      for (let i = 0; i < el.attributes.length; i++) script.setAttribute(el.attributes[i].name, el.attributes[i].value);
      const isModule = el.type === moduleType;
      if (isModule) script.type = 'module';
      else script.removeAttribute('type');
      script.async = el.hasAttribute('async');
      script.text = el.text;
      el.replaceWith(script);
      if (isModule) {
        // A module runs once fetched; one more put after it, run in order after it, says when it has.
        return new Promise<void>(function (resolve) {
          const sentinel = doc.createElement('script');
          sentinel.type = 'module';
          sentinel.async = false;
          sentinel.text = 'document.dispatchEvent(new Event("vidkit-modules-ran"))';
          doc.addEventListener('vidkit-modules-ran', function () { sentinel.remove(); resolve(); }, { once: true });
          (doc.body || doc.documentElement).appendChild(sentinel);
        });
      }
      if (!script.hasAttribute('src') || script.async) return undefined;
      return new Promise<void>(function (resolve) {
        script.addEventListener('load', function () { resolve(); });
        script.addEventListener('error', function () { resolve(); });
      });
    });
  }, Promise.resolve());
}
