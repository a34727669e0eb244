import { PythonRegexError } from '@stackspec/core';
import type { ValueRule } from '../define.js';
import type { RegisteredExtraSpec } from '../registry.js';
import { assertDocSource, groupByNamespace } from './common.js';
import { rstToPlain } from './inline.js';
import { portableFullMatch } from './json-schema.js';
import type { DocSource } from './text.js';

/** One property of a Glance metadata definition namespace. */
export interface MetadefProperty {
  title: string;
  description: string;
  type: 'string' | 'integer' | 'boolean';
  enum?: string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
}

/** One Glance metadata definition namespace (the shape of Glance's `etc/metadefs/*.json`). */
export interface MetadefNamespace {
  namespace: string;
  display_name: string;
  description: string;
  visibility: 'public' | 'private';
  protected: boolean;
  resource_type_associations: { name: string; prefix?: string; properties_target?: string }[];
  properties: Record<string, MetadefProperty>;
}

/** A metadef file: its suggested file name and content. */
export interface MetadefFile {
  fileName: string;
  namespace: MetadefNamespace;
}

/** Options for {@link renderMetadefs}. */
export interface RenderMetadefsOptions {
  /** Prefix of namespace ids (default `OS::Compute::ExtraSpecs`). */
  idPrefix?: string;
  /** `visibility` of every namespace (default `public`). */
  visibility?: 'public' | 'private';
  /** `protected` of every namespace (default `true`, like Glance's own files). */
  protected?: boolean;
}

const DISPLAY: Record<string, string> = {
  hw: 'Virtual Hardware',
  hw_rng: 'Random Number Generator',
  hw_video: 'Video Device',
  os: 'Guest OS Integration',
  quota: 'Resource Quotas',
  pci_passthrough: 'PCI Passthrough',
  accel: 'Accelerators',
  vmware: 'VMware',
  powervm: 'PowerVM',
  capabilities: 'Compute Host Capabilities',
  trait: 'Required and Forbidden Traits',
  resources: 'Resource Amounts',
  '': 'Un-namespaced Extra Specs',
};

function pascal(ns: string): string {
  return ns
    .split('_')
    .map((p) => (p.length <= 3 ? p.toUpperCase() : p[0]?.toUpperCase() + p.slice(1)))
    .join('');
}

function titleOf(key: string): string {
  const words = key.replace(/[_.]/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function property(e: RegisteredExtraSpec, key: string, rule: ValueRule = e.value): MetadefProperty {
  const dep = e.definition.deprecated;
  const description = `${rstToPlain(e.definition.description)}${dep ? ` Deprecated since ${dep.since}: ${rstToPlain(dep.reason)}` : ''}`;
  const p: MetadefProperty = {
    title: titleOf(key),
    description,
    type: rule.type === 'int' ? 'integer' : rule.type === 'bool' ? 'boolean' : 'string',
  };
  if (rule.type === 'int') {
    if (rule.min !== undefined) p.minimum = rule.min;
    if (rule.max !== undefined) p.maximum = rule.max;
  }
  if (rule.type === 'str' && rule.enum) p.enum = [...rule.enum];
  if (rule.type === 'str' && rule.pattern) {
    // Glance and Horizon search with the pattern; anchor it, in a form every engine reads alike.
    try {
      p.pattern = portableFullMatch(rule.pattern);
    } catch (e) {
      if (!(e instanceof PythonRegexError)) throw e;
      p.description += ` The value must match the Python pattern ${rule.pattern}, which is not given here: it has no portable form (${e.message}).`;
    }
  }
  return p;
}

/**
 * Turns a registry into Glance metadata definition namespaces, one per extra
 * spec namespace, shaped like Glance's own `etc/metadefs` files so that
 * `glance md-namespace-import` and Horizon's flavor and image metadata editors
 * can use them.
 *
 * Every namespace is associated with `OS::Nova::Flavor` (prefix `ns:`, or
 * `trait:` / `resources:` for the placement keys). Keys with an image
 * property of the same name (`hw:cpu_policy` ↔ `hw_cpu_policy`) are also
 * written to a second namespace (`…::Image`) associated only with
 * `OS::Glance::Image` (prefix `hw_`) and `OS::Cinder::Volume` (prefix `hw_`,
 * `properties_target: image`), so that each flavor key is offered once.
 * Patterned keys other than the request-group
 * ones cannot be expressed as metadef properties and are left out; keys
 * removed in the registry's release are not present to begin with.
 * Value patterns are anchored and written so that Python's `re` and
 * ECMAScript read them alike (as in {@link renderJsonSchema}), since Glance
 * and Horizon search with them rather than match the whole value.
 */
export function renderMetadefs(source: DocSource, options: RenderMetadefsOptions = {}): MetadefFile[] {
  assertDocSource(source, 'renderMetadefs');
  const idPrefix = options.idPrefix ?? 'OS::Compute::ExtraSpecs';
  const common = {
    visibility: options.visibility ?? 'public',
    protected: options.protected ?? true,
  } as const;
  const files: MetadefFile[] = [];
  for (const [ns, list] of groupByNamespace(source.entries())) {
    const flavorProps: Record<string, MetadefProperty> = {};
    const imageProps: Record<string, MetadefProperty> = {};
    let flavorPrefix = ns ? `${ns}:` : '';
    let imagePrefix: string | undefined;
    for (const e of list) {
      let key: string;
      if (ns === 'trait' || ns === 'resources') {
        const m = /^[a-z]+\{group\}:([A-Z0-9_]+)$/.exec(e.name);
        if (!m) continue;
        key = m[1] as string;
        flavorPrefix = `${ns}:`;
      } else if (e.parameters.length) {
        continue;
      } else {
        key = ns ? e.name.slice(ns.length + 1) : e.name;
      }
      flavorProps[key] = property(e, key);
      const image = e.definition.imageProperty;
      if (ns && image && image === `${ns}_${key}`) {
        imagePrefix = `${ns}_`;
        imageProps[key] = property(e, key, e.definition.imageValue ?? e.value);
      }
    }
    if (!Object.keys(flavorProps).length) continue;
    const display = DISPLAY[ns] ?? ns;
    const id = `${idPrefix}::${ns ? pascal(ns) : 'None'}`;
    files.push({
      fileName: `extra-specs-${ns || 'none'}.json`.replace(/_/g, '-'),
      namespace: {
        namespace: id,
        display_name: `${display} (flavor extra specs)`,
        description: `Flavor extra specs in the ${ns ? `'${ns}'` : 'empty'} namespace, as Nova ${source.release.series} (${source.release.name}) validates them.`,
        ...common,
        resource_type_associations: [
          { name: 'OS::Nova::Flavor', ...(flavorPrefix ? { prefix: flavorPrefix } : {}) },
        ],
        properties: flavorProps,
      },
    });
    if (imagePrefix && Object.keys(imageProps).length) {
      files.push({
        fileName: `extra-specs-${ns}-image.json`.replace(/_/g, '-'),
        namespace: {
          namespace: `${id}::Image`,
          display_name: `${display} (image properties)`,
          description: `Settings of the '${ns}' namespace that images and volumes can carry too (as ${imagePrefix}* properties); flavors take them from the flavor namespace.`,
          ...common,
          resource_type_associations: [
            { name: 'OS::Glance::Image', prefix: imagePrefix },
            { name: 'OS::Cinder::Volume', prefix: imagePrefix, properties_target: 'image' },
          ],
          properties: imageProps,
        },
      });
    }
  }
  return files;
}

/** A metadef namespace as Glance's files print it (4-space indent, trailing newline). */
export function formatMetadef(namespace: MetadefNamespace): string {
  return `${JSON.stringify(namespace, null, 4)}\n`;
}
