import type { DeclarationSet } from '../composition/variables';
import { badInput } from '../errors';
import type { Row } from './rows-file';

/** The column a table names each row's output in, as the batch parser reads it. */
const OUTPUT_KEY = 'outputKey';

/**
 * Rows as a CSV (`,`) or TSV (tab) table that the batch parser reads back to the same rows: a
 * header of `outputKey` and one column per variable (the declared ones in their order, then any
 * other a row has, so nothing is dropped), each cell the value's text, which the parser types by
 * the variable's declaration, and an empty cell for a default. A field holding the delimiter, a
 * quote or a line break is quoted, its quotes doubled (RFC 4180, as the parser reads TSV too).
 */
export function rowsTable(rows: Row[], declarations: DeclarationSet, delimiter: ',' | '\t'): string {
  const columns = declarations.declarations.map((d) => d.id);
  for (const row of rows) for (const id of Object.keys(row.variables)) if (!columns.includes(id)) columns.push(id);
  if (columns.includes(OUTPUT_KEY)) throw badInput(`a variable is named "${OUTPUT_KEY}", the column a table names outputs in: keep these rows in a .jsonl file`);
  const field = (text: string) => (text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const line = (cells: string[]) => `${cells.map(field).join(delimiter)}\n`;
  return line([OUTPUT_KEY, ...columns]) + rows.map((row, i) => line([row.outputKey, ...columns.map((id) => cellText(row, i, id))])).join('');
}

/** A variable's cell; bad input for a value a cell cannot hold as the parser would read it back. */
function cellText(row: Row, index: number, id: string): string {
  const value = row.variables[id];
  if (value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const where = `row ${index + 1} (${row.outputKey}), "${id}"`;
  if (typeof value !== 'string') throw badInput(`${where}: ${JSON.stringify(value)} is not text, a number or a boolean, which a table cell holds: keep these rows in a .jsonl file`);
  if (value === '') throw badInput(`${where}: an empty text, which a table cannot hold (an empty cell is the variable's default): give it a value, or keep these rows in a .jsonl file`);
  return value;
}
