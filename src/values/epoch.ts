// What the page's Date reads at time 0, as every caller gives it: no imports, as the player bundles it.

/** What {@link parseEpoch} accepts, for error messages. */
export const EPOCH_FORMS = 'an ISO 8601 date such as 2024-01-01 or 2024-01-01T12:00:00Z (a time needs its zone), or milliseconds since 1970-01-01 UTC';

/** The range of a JavaScript Date. */
const MAX_DATE_MS = 8.64e15;
// A time without a zone would be read in the local zone of each machine, so it must carry one.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?$/;

/** An epoch given as an ISO date or a number of milliseconds; undefined when it is neither. */
export function parseEpoch(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && Math.abs(value) <= MAX_DATE_MS ? value : undefined;
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return parseEpoch(Number(text));
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  // Date.parse rolls 2024-02-30 over into March; a date that does not exist is refused instead.
  const [year, month, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const date = new Date(Date.UTC(year, month, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return Date.parse(text);
}
