export type { FetchHandler, RunningServer, StartServerOptions } from './serve.js';
export { startServer } from './serve.js';
