import {
  createDiagnostic,
  type Diagnostic,
  didYouMean,
  hasErrors,
  pyInt,
  pyRepr,
  pyStrip,
  suggest,
  toJsonPointer,
  translatePythonRegex,
} from '@stackspec/core';
import { optionsOf, requireString } from './guards.js';
import { createLookup } from './key-index.js';
import { createNameRegistry } from './name-registry.js';
import { type ExtraSpecRegistry, internals, type RegisteredExtraSpec } from './registry.js';
import type { NovaRelease } from './releases.js';
import {
  builtinRegistry,
  modeOption,
  type ValidateExtraSpecsResult,
  type ValidationMode,
} from './validate.js';
import { compileValueRule, describeValueRule, ValueVerdict } from './value-check.js';

/**
 * Nova's CPU set parser for `hw_numa_cpus.N` image properties: comma-separated
 * rules, each a CPU, a range `a-b` or an exclusion `^a` / `^a-b`. Returns
 * Nova's message for the first bad rule, or `undefined`.
 */
export function checkCpuSpec(spec: string): string | undefined {
  const int = (t: string) => pyInt(pyStrip(t));
  for (const raw of spec.split(',')) {
    const rule = pyStrip(raw);
    if (rule.length < 1) continue;
    const dash = rule.indexOf('-');
    if (dash >= 0) {
      let first = rule.slice(0, dash);
      if (first.startsWith('^')) first = first.slice(1);
      const a = int(first);
      const b = int(rule.slice(dash + 1));
      if (!a.ok || !b.ok || a.value > b.value) return `Invalid range expression ${pyRepr(rule)}`;
    } else if (rule.startsWith('^')) {
      if (!int(rule.slice(1)).ok) return `Invalid exclusion expression ${pyRepr(rule)}`;
    } else if (!pyInt(rule).ok) return `Invalid inclusion expression ${pyRepr(rule)}`;
  }
  return undefined;
}

const NUMA_CELL = /^hw_numa_(cpus|mem)\.(0|[1-9][0-9]*)$/;
/** Nova reads NUMA cells 0, 1, 2… up to the first missing one, at most 128. */
const NUMA_NODES_MAX = 128;

function numaCellRead(properties: Readonly<Record<string, unknown>>, name: string): boolean {
  const m = NUMA_CELL.exec(name);
  if (!m) return false;
  const cell = Number(m[2]);
  if (cell >= NUMA_NODES_MAX) return false;
  for (let i = 0; i < cell; i += 1) if (!Object.hasOwn(properties, `hw_numa_${m[1]}.${i}`)) return false;
  return true;
}

/**
 * Image properties Nova reads that have no flavor counterpart (names from
 * Nova's image metadata object). They are never reported as unknown or as
 * typos of extra-spec properties.
 */
export const IMAGE_ONLY_PROPERTIES: readonly string[] = [
  'hw_architecture',
  'hw_auto_disk_config',
  'hw_cdrom_bus',
  'hw_device_id',
  'hw_disk_bus',
  'hw_disk_type',
  'hw_emulation_architecture',
  'hw_ephemeral_encryption_secret_uuid',
  'hw_firmware_stateless',
  'hw_firmware_type',
  'hw_floppy_bus',
  'hw_input_bus',
  'hw_ipxe_boot',
  'hw_machine_type',
  'hw_maxphysaddr_bits',
  'hw_maxphysaddr_mode',
  'hw_pointer_model',
  'hw_qemu_guest_agent',
  'hw_rescue_bus',
  'hw_rescue_device',
  'hw_rng_model',
  'hw_scsi_model',
  'hw_time_hpet',
  'hw_video_model',
  'hw_video_ram',
  'hw_vif_model',
  'hw_vm_mode',
  'img_bdm_v2',
  'img_bittorrent',
  'img_cache_in_nova',
  'img_compression_level',
  'img_config_drive',
  'img_hv_requested_version',
  'img_hv_type',
  'img_linked_clone',
  'img_mappings',
  'img_owner_id',
  'img_root_device_name',
  'img_signature',
  'img_signature_certificate_uuid',
  'img_signature_hash_method',
  'img_signature_key_type',
  'img_use_agent',
  'img_version',
  'os_admin_user',
  'os_command_line',
  'os_distro',
  'os_require_quiesce',
  'os_skip_agent_inject_files_at_boot',
  'os_skip_agent_inject_ssh',
  'os_type',
];

/** Options for {@link validateImageProperties}. */
export interface ValidateImagePropertiesOptions {
  /**
   * `strict` (default) and `permissive` apply the extra spec's value rule
   * (bounds included) to the matching image property; `strict` also reports
   * likely typos of known properties as errors (`permissive`: warnings).
   * `nova` mirrors how Nova reads image properties: enumerations must match,
   * integers must parse (no bounds), booleans and strings are never refused,
   * unknown properties are ignored. `off` checks nothing.
   */
  mode?: ValidationMode;
  release?: string | NovaRelease;
  registry?: ExtraSpecRegistry;
  basePath?: string;
}

/** What an image property maps to. */
export interface ImagePropertyMatch {
  /** The extra spec with the same meaning. */
  spec: RegisteredExtraSpec;
  /** The image property template (`hw_numa_cpus.{num}`) or name. */
  property: string;
}

interface ImageIndex {
  find(name: string): ImagePropertyMatch | undefined;
  names: string[];
}

const indexes = new WeakMap<ExtraSpecRegistry, ImageIndex>();

function imageIndex(registry: ExtraSpecRegistry): ImageIndex {
  const hit = indexes.get(registry);
  if (hit) return hit;
  const r = createNameRegistry<ImagePropertyMatch>({ literal: 'escape', flags: 'u' });
  const names: string[] = [];
  for (const spec of registry.entries()) {
    const property = spec.definition.imageProperty;
    if (!property) continue;
    const params: Record<string, string> = {};
    for (const p of spec.parameters)
      if (property.includes(`{${p.name}}`)) params[p.name] = translatePythonRegex(p.pattern);
    r.add({ name: property, value: { spec, property }, params });
    names.push(property);
  }
  const index: ImageIndex = { find: createLookup(r), names };
  indexes.set(registry, index);
  return index;
}

/** The extra spec an image property corresponds to (`hw_cpu_policy` → `hw:cpu_policy`), if any. */
export function findImageProperty(
  name: string,
  registry: ExtraSpecRegistry = builtinRegistry(),
): ImagePropertyMatch | undefined {
  requireString(name, 'The property name given to findImageProperty');
  return imageIndex(internals(registry)).find(name);
}

/** The flavor key an image property stands for: `hw_numa_cpus.1` → `hw:numa_cpus.1`. */
export function flavorKeyOf(match: ImagePropertyMatch, property: string): string {
  const names: string[] = [];
  const source = match.property
    .split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part);
      return '(.*)';
    })
    .join('');
  const values = new RegExp(`^${source}$`, 'su').exec(property)?.slice(1) ?? [];
  return match.spec.name.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, p: string) => {
    const at = names.indexOf(p);
    return at >= 0 ? (values[at] ?? whole) : whole;
  });
}

const IMAGE_ONLY = new Set(IMAGE_ONLY_PROPERTIES);
const TRAIT_PROPERTY = /^trait:([A-Z0-9_]+)$/;

/**
 * Checks Glance image properties against the extra spec definitions that
 * have an image counterpart (`hw_cpu_policy`, `hw_numa_cpus.0`,
 * `img_hide_hypervisor_id`…), plus `trait:NAME`, which images may only set
 * to `required`.
 *
 * Codes: `extra-specs/invalid-image-property` (a value the rule refuses),
 * `extra-specs/unknown-image-property` (a name close to a known one — images
 * carry arbitrary metadata, so other unknown names pass).
 *
 * @example
 * validateImageProperties({ hw_cpu_policy: 'dedicatd' });
 * // { ok: false, diagnostics: [{ code: 'extra-specs/invalid-image-property', hint: 'Did you mean dedicated?', … }] }
 */
export function validateImageProperties(
  properties: Readonly<Record<string, string>>,
  options: ValidateImagePropertiesOptions = {},
): ValidateExtraSpecsResult {
  options = optionsOf(options, 'validateImageProperties');
  const mode = modeOption(options.mode);
  const diagnostics: Diagnostic[] = [];
  if (mode === 'off') return { ok: true, diagnostics };
  const base = options.basePath ?? '';
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
    diagnostics.push(
      createDiagnostic({
        code: 'extra-specs/invalid-type',
        path: base,
        message: 'Image properties must be a mapping of names to string values.',
      }),
    );
    return { ok: false, diagnostics };
  }
  const registry = options.registry ?? builtinRegistry(options.release);
  const index = imageIndex(registry);
  for (const name of Object.keys(properties)) {
    const value = properties[name] as unknown;
    const path = `${base}${toJsonPointer([name])}`;
    if (typeof value !== 'string') {
      if (mode !== 'nova') {
        diagnostics.push(
          createDiagnostic({
            code: 'extra-specs/invalid-type',
            path,
            message: `The image property '${name}' must be a string, but it is ${value === null ? 'null' : typeof value}.`,
          }),
        );
      }
      continue;
    }
    const trait = TRAIT_PROPERTY.exec(name);
    if (trait) {
      if (value !== 'required' && mode !== 'nova') {
        diagnostics.push(
          createDiagnostic({
            code: 'extra-specs/invalid-image-property',
            severity: mode === 'strict' ? 'error' : 'warning',
            path,
            message: `Images can only require traits; Nova ignores '${name}=${value}'.`,
            hint: "Use 'required', or forbid the trait in the flavor instead.",
          }),
        );
      }
      continue;
    }
    const match = index.find(name);
    if (!match) {
      if (mode === 'nova' || IMAGE_ONLY.has(name) || !/^(hw|os|img)_/.test(name)) continue;
      const close = suggest(name, [...index.names, ...IMAGE_ONLY_PROPERTIES]);
      if (close.length) {
        diagnostics.push(
          createDiagnostic({
            code: 'extra-specs/unknown-image-property',
            severity: mode === 'strict' ? 'error' : 'warning',
            path,
            message: `'${name}' is not an image property Nova reads.`,
            hint: didYouMean(close) as string,
          }),
        );
      }
      continue;
    }
    const spec = internals(registry).compiled(match.spec);
    const rule = spec.definition.imageValue ?? spec.value;
    if (mode === 'nova') {
      const numa = /^hw_numa_(cpus|mem)\./.test(name);
      if (numa && !numaCellRead(properties, name)) continue;
      const cpuProblem = name.startsWith('hw_numa_cpus.') ? checkCpuSpec(value) : undefined;
      const intValue = rule.type === 'int' ? pyInt(value) : undefined;
      if (cpuProblem) {
        diagnostics.push(
          createDiagnostic({ code: 'extra-specs/invalid-image-property', path, message: cpuProblem }),
        );
      } else if (intValue && !intValue.ok) {
        diagnostics.push(
          createDiagnostic({ code: 'extra-specs/invalid-image-property', path, message: intValue.message }),
        );
      } else if (rule.type === 'str' && rule.enum && !rule.enum.includes(value)) {
        diagnostics.push(
          createDiagnostic({
            code: 'extra-specs/invalid-image-property',
            path,
            message: `Field value ${value} is invalid`,
          }),
        );
      }
      continue;
    }
    const verdict = (rule === spec.value ? spec.checker : compileValueRule(rule)).check(value);
    if (verdict !== ValueVerdict.Ok) {
      const hint = rule.type === 'str' && rule.enum ? didYouMean(suggest(value, rule.enum)) : undefined;
      diagnostics.push(
        createDiagnostic({
          code: 'extra-specs/invalid-image-property',
          path,
          message: `The image property '${name}' (like the extra spec '${spec.name}') must be ${describeValueRule(rule)}, but it is '${value}'.`,
          ...(hint ? { hint } : {}),
        }),
      );
    }
  }
  return { ok: !hasErrors(diagnostics), diagnostics };
}
