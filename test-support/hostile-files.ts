// The files a bounded reader must meet without hanging or running out of
// memory, in a throwaway folder: named pipes with and without a writer, a
// directory where a file is expected, a sparse file of a gigabyte, and a
// small file to test the bound itself on; and the makers of a named pipe and
// a sparse file, for suites that need them under names of their own.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary folder of hostile files; see {@link createHostileFolder}. */
export interface HostileFolder {
  /** The folder, under `os.tmpdir()`. */
  dir: string;
  /** The path of `name` inside the folder. */
  at(name: string): string;
  /** Deletes the folder and everything in it. */
  remove(): void;
}

/**
 * Makes a new temporary folder (named from `prefix`) holding `ok.yaml` with
 * `okText`, an empty `empty.yaml`, a directory `folder.yaml`, the named
 * pipes `fifo.yaml` and `fed.yaml` (see {@link withFedFifo}), a sparse
 * `huge.yaml` of 2 ** 30 bytes and `limit.yaml` of exactly 64
 * bytes. Needs `mkfifo`.
 */
export function createHostileFolder(prefix: string, okText: string): HostileFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const at = (name: string) => join(dir, name);
  writeFileSync(at('ok.yaml'), okText);
  writeFileSync(at('empty.yaml'), '');
  mkdirSync(at('folder.yaml'));
  makeFifo(at('fifo.yaml'));
  makeFifo(at('fed.yaml'));
  // A gigabyte read whole would also make a string too long for V8.
  makeSparseFile(at('huge.yaml'), 2 ** 30);
  writeFileSync(at('limit.yaml'), 'x'.repeat(64));
  return { dir, at, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Makes a named pipe (FIFO) at `path` with `mkfifo`; throws when it cannot. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * Makes a sparse file of `bytes` at `path`: it takes no disk space, yet a
 * reader that reads it whole needs that much memory.
 */
export function makeSparseFile(path: string, bytes: number): void {
  writeFileSync(path, '');
  truncateSync(path, bytes);
}

/**
 * Runs `fn` while the named pipe at `fifo` has a writer that has written
 * `text` into it, so that a reader would find data waiting; closes the
 * writer afterwards, whatever `fn` does.
 */
export function withFedFifo<T>(fifo: string, text: string, fn: () => T): T {
  const writer = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  try {
    writeSync(writer, text);
    return fn();
  } finally {
    closeSync(writer);
  }
}
