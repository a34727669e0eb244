import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostileFolder, type HostileFolder, withFedFifo } from '../../../test-support/hostile-files.js';
import { readHeatFile } from './read-file.js';
import { MAX_SCAN_CHARS } from './scan.js';

let files: HostileFolder;
const at = (name: string) => files.at(name);

beforeAll(() => {
  files = createHostileFolder('heat-read-', '\ufeffheat_template_version: wallaby # é\n');
});

afterAll(() => files.remove());

describe('readHeatFile', () => {
  it('reads a file as UTF-8, keeping a byte-order mark', () => {
    expect(readHeatFile(at('ok.yaml'), 'ok.yaml')).toEqual({
      ok: true,
      text: '\ufeffheat_template_version: wallaby # é\n',
    });
    expect(readHeatFile(at('empty.yaml'), 'empty.yaml')).toEqual({ ok: true, text: '' });
  });

  it('reports a named pipe without waiting for a writer', () => {
    expect(readHeatFile(at('fifo.yaml'), 'fifo.yaml')).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'heat/find/unreadable',
        severity: 'warning',
        file: 'fifo.yaml',
        message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
      }),
    });
  });

  it('reports a named pipe that has a writer and data, without reading what was written', () => {
    withFedFifo(at('fed.yaml'), 'heat_template_version: wallaby\n', () =>
      expect(readHeatFile(at('fed.yaml'), 'fed.yaml')).toEqual({
        ok: false,
        diagnostic: expect.objectContaining({
          code: 'heat/find/unreadable',
          severity: 'warning',
          file: 'fed.yaml',
          message: 'The file cannot be read: it is a named pipe (FIFO), not a regular file.',
        }),
      }),
    );
  });

  it('reports an endless device such as /dev/zero instead of reading it', () => {
    expect(readHeatFile('/dev/zero', '/dev/zero')).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'heat/find/unreadable',
        severity: 'warning',
        file: '/dev/zero',
        message: 'The file cannot be read: it is a device, not a regular file.',
      }),
    });
  });

  it('reports a directory, and a missing file as missing', () => {
    expect(readHeatFile(at('folder.yaml'), 'folder.yaml')).toMatchObject({
      ok: false,
      diagnostic: {
        code: 'heat/find/unreadable',
        severity: 'warning',
        message: expect.stringContaining('a directory'),
      },
    });
    expect(readHeatFile(at('nowhere.yaml'), 'nowhere.yaml')).toEqual({
      ok: false,
      missing: true,
      diagnostic: expect.objectContaining({
        code: 'heat/find/unreadable',
        severity: 'warning',
        file: 'nowhere.yaml',
        message: 'The file does not exist.',
      }),
    });
  });

  it("refuses a file over the bound without reading it, with Heat's own limit as the hint", () => {
    expect(readHeatFile(at('huge.yaml'), 'huge.yaml')).toEqual({
      ok: false,
      diagnostic: expect.objectContaining({
        code: 'heat/find/too-large',
        severity: 'error',
        file: 'huge.yaml',
        message: `The file holds ${2 ** 30} bytes, more than the ${MAX_SCAN_CHARS} bytes a template tree file may hold; it is not read.`,
        hint: 'Heat itself refuses templates over 524288 characters.',
      }),
    });
  });

  it('reads a file of exactly the bound and refuses one byte more', () => {
    expect(readHeatFile(at('limit.yaml'), 'limit.yaml', 64)).toMatchObject({ ok: true });
    expect(readHeatFile(at('limit.yaml'), 'limit.yaml', 63)).toMatchObject({
      ok: false,
      diagnostic: {
        code: 'heat/find/too-large',
        message:
          'The file holds 64 bytes, more than the 63 bytes a template tree file may hold; it is not read.',
      },
    });
  });
});
