import { basename, isAbsolute, resolve } from 'node:path';
import {
  createDiagnostic,
  type Diagnostic,
  type SourceDocument,
  validateDocument,
  validateJsonPointer,
  validateWithSchema,
} from '@stackspec/core';
import { walkFiles } from '@stackspec/core/node';
import {
  type DeployTemplateInput,
  type DriverStep,
  validateDeployTemplate,
} from '@stackspec/deploy-templates';
import { readFlavorFile } from '@stackspec/extra-spec-validators';
import {
  type AggregateInfo,
  type ProviderStore,
  type ResolvedInventory,
  validateInventory,
} from '@stackspec/placement-query';
import { readCheckedFile } from './check.js';
import { classifyDocument } from './classify.js';
import { DriverStepsFileSchema } from './driver-steps.js';

export { DriverStepSchema, DriverStepsFileSchema } from './driver-steps.js';

/** A flavor as found in a file: Nova's API fields and its extra specs. */
export interface CloudFlavor {
  name: string;
  vcpus: number;
  ram: number;
  disk: number;
  ephemeral: number;
  swap: number;
  extraSpecs: Record<string, string>;
  file: string;
  /** JSON pointer of the flavor in its file. */
  path: string;
  /** JSON pointer of its extra specs (`/extra_specs`, `/properties`…). */
  specsPath: string;
  /** The parsed file, to point diagnostics at lines. */
  document?: SourceDocument;
}

/** What a folder of cloud description files holds, for `stackspec schedule`. */
export interface Cloud {
  flavors: CloudFlavor[];
  inventory?: {
    file: string;
    store: ProviderStore;
    aggregates: AggregateInfo[];
    resolved: ResolvedInventory;
  };
  templates: (DeployTemplateInput & { file: string })[];
  driverSteps?: { file: string; steps: DriverStep[] };
  /** Problems met while reading (unreadable or invalid files, several inventories). */
  diagnostics: Diagnostic[];
  /** Files recognised as one of the kinds above but left out because they are invalid. */
  rejected: { file: string; kind: 'placement-inventory' | 'deploy-template' | 'driver-steps' }[];
}

/** Options for {@link loadCloud}. */
export interface LoadCloudOptions {
  /** This Placement inventory file, instead of any found under the paths. */
  inventory?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toInt(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

function valueAt(root: unknown, pointer: string): unknown {
  const segments = validateJsonPointer(pointer).value ?? [];
  let cur = root;
  for (const seg of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

function readFlavors(text: string, file: string): { flavors: CloudFlavor[]; diagnostics: Diagnostic[] } {
  const read = readFlavorFile(text, file);
  const flavors = read.flavors.map((entry, i) => {
    // The flavor object holds the extra specs: its pointer is the parent of theirs.
    const path = entry.path.replace(/\/[^/]*$/, '');
    const flavor = valueAt(read.document?.value, path);
    const f = isObject(flavor) ? flavor : {};
    return {
      name: entry.name ?? `${file}#${i}`,
      vcpus: toInt(f.vcpus),
      ram: toInt(f.ram ?? f.memory_mb),
      disk: toInt(f.disk ?? f.root_gb),
      ephemeral: toInt(f.ephemeral ?? f['OS-FLV-EXT-DATA:ephemeral']),
      swap: toInt(f.swap),
      extraSpecs: entry.extraSpecs,
      specsPath: entry.path,
      file,
      path,
      ...(read.document ? { document: read.document } : {}),
    } satisfies CloudFlavor;
  });
  return { flavors, diagnostics: read.diagnostics };
}

function templatesOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value) && Array.isArray(value.deploy_templates)) return value.deploy_templates;
  return [value];
}

/**
 * Reads every flavor, deploy template, Placement inventory and driver steps
 * file under `paths` (default `.`; none when only `options.inventory` is
 * given). Invalid files are reported in `diagnostics` and left
 * out (and listed in `rejected`); nothing throws for bad input. One
 * inventory and one driver steps file are used: the first by path, or the
 * inventory named in `options.inventory`; others found are warnings
 * (`stackspec/cloud/several-inventories`, `stackspec/cloud/several-driver-steps`).
 */
export async function loadCloud(
  paths: readonly string[],
  cwd: string,
  options: LoadCloudOptions = {},
): Promise<Cloud> {
  const ignore = ['**/node_modules/**', '**/.git/**', '**/*.j2.yaml'];
  // No paths: the working directory, unless an inventory alone was asked for.
  const walked =
    paths.length || !options.inventory
      ? await walkFiles(paths.length ? paths : ['.'], { cwd, ignore })
      : { files: [], diagnostics: [] };
  const cloud: Cloud = { flavors: [], templates: [], diagnostics: [...walked.diagnostics], rejected: [] };
  const explicit = options.inventory;
  let files = walked.files;
  if (explicit) {
    const named = await walkFiles([explicit], { cwd, recursive: false });
    // The inventory was asked for by name: not finding it is an error.
    cloud.diagnostics.push(...named.diagnostics.map((d) => ({ ...d, severity: 'error' as const })));
    if (named.files.length) files = [explicit, ...files];
    else cloud.rejected.push({ file: explicit, kind: 'placement-inventory' });
  }
  const extra = (code: string, what: string, used: string, file: string) =>
    cloud.diagnostics.push(
      createDiagnostic({
        code,
        severity: 'warning',
        message: `${used} is the ${what} used; this one is left out.`,
        file,
        hint: `Keep one ${what} under the paths given${code === 'stackspec/cloud/several-inventories' ? ', or name it with --inventory FILE' : ''}.`,
      }),
    );
  for (const [i, file] of files.entries()) {
    const isExplicit = explicit !== undefined && i === 0 && file === explicit;
    const abs = isAbsolute(file) ? file : resolve(cwd, file);
    const reject = () => {
      if (isExplicit) cloud.rejected.push({ file, kind: 'placement-inventory' });
    };
    const read = readCheckedFile(abs, file);
    if (!read.ok) {
      cloud.diagnostics.push(read.diagnostic);
      reject();
      continue;
    }
    const text = read.text;
    const parsed = validateDocument(text, { filename: file, duplicateKeys: 'warn' });
    if (!parsed.ok) {
      cloud.diagnostics.push(...parsed.diagnostics);
      reject();
      continue;
    }
    const value = parsed.document.value;
    const isDriverSteps =
      (isObject(value) && 'driver_steps' in value) ||
      (/^driver[-_]steps\.(ya?ml|json)$/.test(basename(file)) && Array.isArray(value));
    const kind = isExplicit
      ? 'placement-inventory'
      : isDriverSteps
        ? 'driver-steps'
        : classifyDocument(value, file);
    switch (kind) {
      case 'driver-steps': {
        const r = validateWithSchema(
          DriverStepsFileSchema,
          Array.isArray(value) ? { driver_steps: value } : parsed.document,
          { area: 'stackspec/driver-steps', file },
        );
        if (!r.ok) {
          cloud.diagnostics.push(...r.diagnostics);
          cloud.rejected.push({ file, kind });
        } else if (cloud.driverSteps)
          extra('stackspec/cloud/several-driver-steps', 'driver steps file', cloud.driverSteps.file, file);
        else cloud.driverSteps = { file, steps: r.value.driver_steps as DriverStep[] };
        break;
      }
      case 'flavor': {
        const read = readFlavors(text, file);
        cloud.flavors.push(...read.flavors);
        cloud.diagnostics.push(...read.diagnostics);
        break;
      }
      case 'placement-inventory': {
        // An inventory among the paths gives way to the one named explicitly.
        if (explicit && !isExplicit) break;
        const r = validateInventory(text, { filename: file });
        if (!r.ok) {
          cloud.diagnostics.push(...r.diagnostics);
          cloud.rejected.push({ file, kind });
        } else if (cloud.inventory)
          extra('stackspec/cloud/several-inventories', 'Placement inventory', cloud.inventory.file, file);
        else {
          const aggregates = r.inventory.aggregates.map((a) => ({
            uuid: a.uuid,
            name: a.alias,
            metadata: a.metadata,
          }));
          cloud.inventory = { file, store: r.store, aggregates, resolved: r.inventory };
        }
        break;
      }
      case 'deploy-template':
        for (const item of templatesOf(value)) {
          const r = validateDeployTemplate(item, { file });
          if (r.ok) cloud.templates.push({ ...r.value, file });
          else {
            cloud.diagnostics.push(...r.diagnostics.map((d) => ({ ...d, file })));
            if (!cloud.rejected.some((x) => x.file === file)) cloud.rejected.push({ file, kind });
          }
        }
        break;
      default:
        break;
    }
  }
  return cloud;
}
