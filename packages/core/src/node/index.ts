export * from './dir-lock.js';
export type { ReadTextFileOptions, ReadTextFileResult, ReadTextInputOptions } from './read-file.js';
export { readTextFile, readTextInput } from './read-file.js';
export type { NodeResourceReaderOptions } from './resource-reader.js';
export { createNodeResourceReader } from './resource-reader.js';
export * from './serve.js';
export type { WalkFilesOptions, WalkFilesResult } from './walk.js';
export { displayPath, mapWithConcurrency, walkFiles } from './walk.js';
