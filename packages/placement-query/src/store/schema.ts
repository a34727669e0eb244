// The tables of a durable Placement. They keep what Placement's own database
// keeps (placement/db/sqlalchemy/models.py: providers with their tree and
// generation, inventories, allocations, consumers with generations and
// types, projects, users, traits, aggregates, resource classes), under the
// same table and constraint names, plus two of our own: the change log other
// servers follow, and the migrations applied. Each migration runs once, in
// order, in one transaction; a later release adds migrations, never edits one.

import type { SqlMigration } from '@stackspec/core/sql';

/** Placement numbers custom resource classes from here (standard ones take their list index). */
export const FIRST_CUSTOM_CLASS_ID = 10000;

/** Ordered schema migrations. */
export const MIGRATIONS: readonly SqlMigration[] = [
  {
    version: 1,
    name: 'placement tables and the change log',
    sql: (s) => `
      CREATE TABLE ${s}.resource_classes (
        id INTEGER PRIMARY KEY,
        name VARCHAR(255) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3),
        CONSTRAINT uniq_resource_classes0name UNIQUE (name)
      );
      CREATE SEQUENCE ${s}.resource_classes_custom_id START ${FIRST_CUSTOM_CLASS_ID};
      CREATE TABLE ${s}.resource_providers (
        id SERIAL PRIMARY KEY,
        uuid VARCHAR(36) NOT NULL,
        name VARCHAR(200) NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0,
        root_provider_id INTEGER REFERENCES ${s}.resource_providers (id),
        parent_provider_id INTEGER REFERENCES ${s}.resource_providers (id),
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3),
        CONSTRAINT uniq_resource_providers0uuid UNIQUE (uuid),
        CONSTRAINT uniq_resource_providers0name UNIQUE (name)
      );
      CREATE INDEX resource_providers_root_provider_id_idx ON ${s}.resource_providers (root_provider_id);
      CREATE INDEX resource_providers_parent_provider_id_idx ON ${s}.resource_providers (parent_provider_id);
      CREATE TABLE ${s}.inventories (
        id SERIAL PRIMARY KEY,
        resource_provider_id INTEGER NOT NULL REFERENCES ${s}.resource_providers (id),
        resource_class_id INTEGER NOT NULL REFERENCES ${s}.resource_classes (id),
        total INTEGER NOT NULL,
        reserved INTEGER NOT NULL,
        min_unit INTEGER NOT NULL,
        max_unit INTEGER NOT NULL,
        step_size INTEGER NOT NULL,
        allocation_ratio DOUBLE PRECISION NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3),
        CONSTRAINT uniq_inventories0resource_provider_resource_class UNIQUE (resource_provider_id, resource_class_id)
      );
      CREATE INDEX inventories_resource_class_id_idx ON ${s}.inventories (resource_class_id);
      CREATE TABLE ${s}.traits (
        id SERIAL PRIMARY KEY,
        name VARCHAR(255) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3),
        CONSTRAINT uniq_traits0name UNIQUE (name)
      );
      CREATE TABLE ${s}.resource_provider_traits (
        trait_id INTEGER NOT NULL REFERENCES ${s}.traits (id),
        resource_provider_id INTEGER NOT NULL REFERENCES ${s}.resource_providers (id),
        created_at TIMESTAMP(3) NOT NULL,
        PRIMARY KEY (trait_id, resource_provider_id)
      );
      CREATE INDEX resource_provider_traits_resource_provider_trait_idx
        ON ${s}.resource_provider_traits (resource_provider_id, trait_id);
      CREATE TABLE ${s}.placement_aggregates (
        id SERIAL PRIMARY KEY,
        uuid VARCHAR(36) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        CONSTRAINT uniq_placement_aggregates0uuid UNIQUE (uuid)
      );
      CREATE TABLE ${s}.resource_provider_aggregates (
        resource_provider_id INTEGER NOT NULL REFERENCES ${s}.resource_providers (id),
        aggregate_id INTEGER NOT NULL REFERENCES ${s}.placement_aggregates (id),
        position INTEGER NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        PRIMARY KEY (resource_provider_id, aggregate_id)
      );
      CREATE INDEX resource_provider_aggregates_aggregate_id_idx ON ${s}.resource_provider_aggregates (aggregate_id);
      CREATE TABLE ${s}.projects (
        id SERIAL PRIMARY KEY,
        external_id VARCHAR(255) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        CONSTRAINT uniq_projects0external_id UNIQUE (external_id)
      );
      CREATE TABLE ${s}.users (
        id SERIAL PRIMARY KEY,
        external_id VARCHAR(255) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        CONSTRAINT uniq_users0external_id UNIQUE (external_id)
      );
      CREATE TABLE ${s}.consumer_types (
        id SERIAL PRIMARY KEY,
        name VARCHAR(255) NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        CONSTRAINT uniq_consumer_types0name UNIQUE (name)
      );
      CREATE TABLE ${s}.consumers (
        id SERIAL PRIMARY KEY,
        uuid VARCHAR(36) NOT NULL,
        project_id INTEGER NOT NULL REFERENCES ${s}.projects (id),
        user_id INTEGER NOT NULL REFERENCES ${s}.users (id),
        generation INTEGER NOT NULL DEFAULT 0,
        consumer_type_id INTEGER REFERENCES ${s}.consumer_types (id),
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3),
        CONSTRAINT uniq_consumers0uuid UNIQUE (uuid)
      );
      CREATE INDEX consumers_project_id_uuid_idx ON ${s}.consumers (project_id, uuid);
      CREATE INDEX consumers_project_id_user_id_uuid_idx ON ${s}.consumers (project_id, user_id, uuid);
      CREATE INDEX consumers_consumer_type_id_idx ON ${s}.consumers (consumer_type_id);
      CREATE TABLE ${s}.allocations (
        id SERIAL PRIMARY KEY,
        resource_provider_id INTEGER NOT NULL REFERENCES ${s}.resource_providers (id),
        consumer_id VARCHAR(36) NOT NULL REFERENCES ${s}.consumers (uuid),
        resource_class_id INTEGER NOT NULL REFERENCES ${s}.resource_classes (id),
        used INTEGER NOT NULL,
        created_at TIMESTAMP(3) NOT NULL,
        updated_at TIMESTAMP(3)
      );
      CREATE INDEX allocations_resource_provider_class_used_idx
        ON ${s}.allocations (resource_provider_id, resource_class_id, used);
      CREATE INDEX allocations_resource_class_id_idx ON ${s}.allocations (resource_class_id);
      CREATE INDEX allocations_consumer_id_idx ON ${s}.allocations (consumer_id);
      CREATE TABLE ${s}.placement_changes (
        id BIGINT PRIMARY KEY,
        created_at TIMESTAMP(3) NOT NULL,
        changes TEXT NOT NULL
      )
    `,
  },
];

/** The latest schema version this package knows. */
export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
