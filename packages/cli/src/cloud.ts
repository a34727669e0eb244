import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import {
  createDiagnostic,
  type Diagnostic,
  describeError,
  parseJsonPointer,
  type SourceDocument,
  safeParseDocument,
  validateWithSchema,
} from '@stackspec/core';
import { walkFiles } from '@stackspec/core/node';
import {
  type DeployTemplateInput,
  type DriverStep,
  validateDeployTemplate,
} from '@stackspec/deploy-templates';
import { readFlavorFile } from '@stackspec/extra-spec-validators';
import { type AggregateInfo, type ProviderStore, safeLoadInventory } from '@stackspec/placement-query';
import { z } from 'zod';
import { classifyDocument } from './classify.js';

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
  inventory?: { file: string; store: ProviderStore; aggregates: AggregateInfo[] };
  templates: (DeployTemplateInput & { file: string })[];
  driverSteps?: { file: string; steps: DriverStep[] };
  /** Problems met while reading (unreadable or invalid files). */
  diagnostics: Diagnostic[];
}

const ArgInfoSchema = z
  .object({ description: z.string().optional(), required: z.boolean().optional() })
  .loose();

/** One deploy step as a node's driver reports it. */
export const DriverStepSchema = z
  .object({
    interface: z.string().min(1),
    step: z.string().min(1),
    priority: z.number().int().min(0),
    argsinfo: z.record(z.string(), ArgInfoSchema).nullable().optional(),
  })
  .loose();

/** A driver steps file: `driver_steps: [...]` (or a bare list in a file named `driver-steps.yaml`). */
export const DriverStepsFileSchema = z.strictObject({ driver_steps: z.array(DriverStepSchema) });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toInt(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0;
}

function valueAt(root: unknown, pointer: string): unknown {
  const segments = parseJsonPointer(pointer) ?? [];
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
 * file under `paths`. Invalid files are reported in `diagnostics` and left
 * out; nothing throws for bad input.
 */
export async function loadCloud(paths: readonly string[], cwd: string): Promise<Cloud> {
  const walked = await walkFiles(paths.length ? paths : ['.'], {
    cwd,
    ignore: ['**/node_modules/**', '**/.git/**', '**/*.j2.yaml'],
  });
  const cloud: Cloud = { flavors: [], templates: [], diagnostics: [...walked.diagnostics] };
  for (const file of walked.files) {
    const abs = isAbsolute(file) ? file : resolve(cwd, file);
    let text: string;
    try {
      text = await readFile(abs, 'utf8');
    } catch (e) {
      cloud.diagnostics.push(
        createDiagnostic({
          code: 'check/unreadable',
          message: `The file cannot be read: ${describeError(e)}.`,
          file,
        }),
      );
      continue;
    }
    const parsed = safeParseDocument(text, { filename: file, duplicateKeys: 'warn' });
    if (!parsed.ok) {
      cloud.diagnostics.push(...parsed.diagnostics);
      continue;
    }
    const value = parsed.document.value;
    const isDriverSteps =
      (isObject(value) && 'driver_steps' in value) ||
      (/^driver[-_]steps\.(ya?ml|json)$/.test(basename(file)) && Array.isArray(value));
    if (isDriverSteps) {
      const r = validateWithSchema(
        DriverStepsFileSchema,
        Array.isArray(value) ? { driver_steps: value } : parsed.document,
        {
          area: 'driver-steps',
          file,
        },
      );
      if (r.ok) cloud.driverSteps = { file, steps: r.value.driver_steps as DriverStep[] };
      else cloud.diagnostics.push(...r.diagnostics);
      continue;
    }
    switch (classifyDocument(value, file)) {
      case 'flavor': {
        const read = readFlavors(text, file);
        cloud.flavors.push(...read.flavors);
        cloud.diagnostics.push(...read.diagnostics);
        break;
      }
      case 'placement-inventory': {
        const r = safeLoadInventory(text, { filename: file });
        if (r.ok) {
          const aggregates = r.inventory.aggregates.map((a) => ({
            uuid: a.uuid,
            name: a.alias,
            metadata: a.metadata,
          }));
          cloud.inventory = { file, store: r.store, aggregates };
        } else cloud.diagnostics.push(...r.diagnostics);
        break;
      }
      case 'deploy-template':
        for (const item of templatesOf(value)) {
          const r = validateDeployTemplate(item, { file });
          if (r.ok) cloud.templates.push({ ...r.value, file });
          else cloud.diagnostics.push(...r.diagnostics.map((d) => ({ ...d, file })));
        }
        break;
      default:
        break;
    }
  }
  return cloud;
}
