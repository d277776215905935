import { badInput } from '../errors';
import type { Composition } from './composition';
import { Overrides, checkOverrides, mergeVariables } from './variables';

export interface ResolvedVariables {
  /** What `getVariables()` returns in the page. */
  values: Record<string, unknown>;
  /** Mismatches and undeclared keys that did not stop the render. */
  warnings: string[];
}

/**
 * Checks overrides against the composition's declarations and merges them over the defaults.
 * A mismatch is a warning; under `strict` every mismatch fails the render, all named at once.
 */
export function resolveVariables(composition: Composition, overrides: Overrides, strict: boolean): ResolvedVariables {
  const issues = checkOverrides(composition.variables, overrides);
  if (strict && issues.length > 0) {
    throw badInput(`--strict-variables: ${issues.map((i) => i.message).join('; ')}`);
  }
  return {
    values: mergeVariables(composition.variables, overrides),
    warnings: issues.map((i) => i.message),
  };
}
