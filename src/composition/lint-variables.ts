import { VidkitError } from '../errors';
import { declaringElements } from './composition';
import type { LintContext } from './lint-finding';
import { VARIABLE_TYPES, parseDeclarations, typeMismatch } from './variables';

/**
 * Declarations a render would refuse or drop, defaults that do not fit their type, and bindings
 * (`data-var-text`, `data-var-src`) that name no declared variable.
 */
export function lintVariables(ctx: LintContext): void {
  const declared = new Set<string>();
  const dropped = new Set<string>();
  for (const el of declaringElements(ctx.doc)) {
    const raw = el.getAttribute('data-composition-variables');
    if (raw === undefined) continue;
    let set;
    try {
      set = parseDeclarations(raw, ctx.file);
    } catch (err) {
      if (!(err instanceof VidkitError)) throw err;
      ctx.report({ severity: 'error', rule: 'variables-invalid', message: err.message.replace(`${ctx.file}: `, ''), at: el });
      continue;
    }
    for (const decl of set.declarations) {
      declared.add(decl.id);
      dropped.delete(decl.id);
      const mismatch = decl.default === undefined ? undefined : typeMismatch(decl, decl.default);
      if (mismatch) {
        ctx.report({ severity: 'warning', rule: 'variable-default-type', message: `the default of ${mismatch}; overrides are checked against the type, the default is used as it is`, at: el });
      }
    }
    // parseDeclarations has accepted the JSON: read the dropped declarations' types for the message.
    const types = new Map((JSON.parse(raw) as Array<{ id: string; type?: unknown }>).map((d) => [d.id, d.type]));
    for (const id of set.droppedIds) {
      declared.delete(id);
      dropped.add(id);
      ctx.report({
        severity: 'error',
        rule: 'variable-type-unsupported',
        message: `variable "${id}" has type ${JSON.stringify(types.get(id))}, which is not one of ${VARIABLE_TYPES.join(', ')}: it is dropped, so getVariables() leaves it out and its bindings keep their markup`,
        at: el,
      });
    }
  }
  for (const attr of ['data-var-text', 'data-var-src']) {
    for (const el of ctx.doc.querySelectorAll(`[${attr}]`)) {
      const id = (el.getAttribute(attr) ?? '').trim();
      if (declared.has(id) || dropped.has(id)) continue;
      ctx.report({
        severity: 'warning',
        rule: 'variable-binding-undeclared',
        message: `${attr}="${id}" names no declared variable: the element keeps its markup; declare "${id}" in data-composition-variables`,
        at: el,
      });
    }
  }
}
