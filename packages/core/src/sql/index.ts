export type {
  DriverQueryable,
  DriverQueryResult,
  SqlExecutor,
  SqlQueryable,
  SqlRowsResult,
  SqlTransactional,
} from './executor.js';
export { sqlExecutorOf } from './executor.js';
export { quoteIdent } from './identifier.js';
export type {
  ClosableDatabase,
  LazyDatabase,
  LockedDatabase,
  OpenLockedDatabaseOptions,
} from './locked-database.js';
export { createLazyDatabase, openLockedDatabase } from './locked-database.js';
export type {
  SchemaMigrator,
  SchemaMigratorOptions,
  SchemaState,
  SqlMigration,
  SqlMigrationResult,
} from './migrations.js';
export { createSchemaMigrator } from './migrations.js';
export type {
  ConnectionPool,
  PoolErrorEvents,
  PooledConnection,
  PoolOptionProblem,
  PostgresPoolConfig,
  PostgresPoolOptions,
} from './postgres-pool.js';
export { createPostgresPool, findPoolOptionProblem, runPoolTransaction } from './postgres-pool.js';
export type { SqlStorageErrorOptions } from './storage-error.js';
export { INSUFFICIENT_PRIVILEGE, sqlStateOf, sqlStorageError } from './storage-error.js';
