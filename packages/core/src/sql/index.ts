export * from './executor.js';
export { quoteIdent } from './identifier.js';
export * from './locked-database.js';
export * from './migrations.js';
export * from './postgres-pool.js';
export type { SqlStorageErrorOptions } from './storage-error.js';
export { INSUFFICIENT_PRIVILEGE, sqlStateOf, sqlStorageError } from './storage-error.js';
