export type { ReadTextFileOptions, ReadTextFileResult } from './read-file.js';
export { readTextFile } from './read-file.js';
export type { FetchHandler, RunningServer, StartServerOptions } from './serve.js';
export { bytesResponse, startServer } from './serve.js';
export type { WalkFilesOptions, WalkFilesResult } from './walk.js';
export { displayPath, mapWithConcurrency, walkFiles } from './walk.js';
