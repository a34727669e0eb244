export type { DirLock, DirLockHolder, DirLockOptions } from './dir-lock.js';
export {
  DIR_LOCK_FILE,
  DirLockHolderSchema,
  lockDirectory,
  processStartTime,
  readDirLockHolder,
} from './dir-lock.js';
export type { ReadTextFileOptions, ReadTextFileResult, ReadTextInputOptions } from './read-file.js';
export { readTextFile, readTextInput } from './read-file.js';
export type { NodeResourceReaderOptions } from './resource-reader.js';
export { createNodeResourceReader } from './resource-reader.js';
export type {
  FetchHandler,
  OversizedHead,
  OversizedHeadHook,
  RunningServer,
  StartServerOptions,
} from './serve.js';
export { bytesResponse, DEFAULT_MAX_HEADER_BYTES, startServer } from './serve.js';
export type { WalkFilesOptions, WalkFilesResult } from './walk.js';
export { displayPath, mapWithConcurrency, walkFiles } from './walk.js';
