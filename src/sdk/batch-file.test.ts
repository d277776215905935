import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../test-support/cli';
import { readBatchFile } from './batch-file';

test('readBatchFile decodes packed native entries exactly: multi-byte keys, escapes, blank lines, bad lines', async () => {
  const dir = tempDir('vidkit-batch-file-');
  try {
    const file = path.join(dir, 'b.jsonl');
    fs.writeFileSync(
      file,
      [
        '{"outputKey": "vidéo/ü-🎬.mp4", "variables": {"title": "Grüße 🎉"}}',
        '',
        '{"outputKey": "esc\\u00e9\\"q.mp4", "variables": {"n": 3}}',
        '{"outputKey": 5, "variables": {}}',
        '{"variables": {}, "outputKey": "last.mp4", "extra": true}',
      ].join('\n'),
    );
    const batch = await readBatchFile(file);
    assert.is(batch.entries.length, 3);
    assert.equal(
      [0, 1, 2].map((i) => batch.entries.at(i)),
      [
        { line: 1, outputKey: 'vidéo/ü-🎬.mp4', variablesJson: '{"title": "Grüße 🎉"}' },
        { line: 3, outputKey: 'escé"q.mp4', variablesJson: '{"n": 3}' },
        { line: 5, outputKey: 'last.mp4', variablesJson: '{}' },
      ],
    );
    assert.is(batch.entries.at(3), undefined);
    assert.equal(batch.problems, [{ line: 4, reason: '"outputKey" must be a non-empty string, got a number' }]);
    const missing = await readBatchFile(path.join(dir, 'missing.jsonl')).then(() => undefined, (err: Error) => err);
    assert.match(missing?.message ?? 'no error', /^cannot read batch file .*missing\.jsonl: No such file/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
