import type { DeclarationSet } from '../composition/variables';
import { badInput, errorMessage } from '../errors';
import { DEFAULT_MAX_BATCH_BYTES } from '../values/constants';
import { checkBatchFileSize } from '../options/input-limits';
import { PackedBatchParse, loadNative } from '../native';
import type { BatchItem, BatchLineProblem } from './batch-dispatch';
import type { Indexed } from './map-limit';

/**
 * A batch file, parsed natively; entries are decoded when they are read. JSONL (one
 * `{"outputKey", "variables"}` object a line), a
 * JSON array of the same entries, or a CSV or TSV table, told by the file's name.
 */
export interface BatchFile {
  entries: Indexed<BatchItem>;
  /** Lines that cannot be rendered, with the native parser's reason. */
  problems: BatchLineProblem[];
}

/** The entries of a packed native parse, each decoded only when asked for. */
class PackedEntries implements Indexed<BatchItem> {
  readonly length: number;

  constructor(private readonly packed: PackedBatchParse) {
    this.length = packed.spans.length / 4;
  }

  at(index: number): BatchItem | undefined {
    if (index < 0 || index >= this.length) return undefined;
    const [line, start, mid, end] = this.packed.spans.subarray(index * 4, index * 4 + 4);
    const { text } = this.packed;
    return { line, outputKey: text.toString('utf8', start, mid), variablesJson: text.toString('utf8', mid, end) };
  }
}

export interface BatchFileOptions {
  /** The composition's declarations: a table's cells are converted by their variable's type. */
  declarations?: DeclarationSet;
  /** A table without an outputKey column names each row's output with its cells: `renders/{id}.mp4`. */
  outputKeyPattern?: string;
  /** Bytes the file may have; default DEFAULT_MAX_BATCH_BYTES (src/values/constants.ts). A larger one is refused unread. */
  maxBytes?: number;
}

/** Reads a batch file off the main thread; an unreadable file is an error naming it. */
export async function readBatchFile(file: string, options: BatchFileOptions = {}): Promise<BatchFile> {
  const native = {
    declarations: options.declarations?.declarations.map((d) => ({ id: d.id, type: d.type, options: d.options?.map((o) => o.value) ?? [] })) ?? [],
    outputKeyPattern: options.outputKeyPattern,
  };
  checkBatchFileSize(file, options.maxBytes ?? DEFAULT_MAX_BATCH_BYTES);
  let packed: PackedBatchParse;
  try {
    packed = await loadNative().parseBatchFile(file, JSON.stringify(native));
  } catch (err) {
    throw badInput(errorMessage(err));
  }
  return { entries: new PackedEntries(packed), problems: packed.errors };
}
