import { dirname, resolve } from 'node:path';
import type { Diagnostic, SourceDocument } from '@stackspec/core';
import { validateDeployTemplate } from '@stackspec/deploy-templates';
import { type ValidationMode, validateExtraSpecs } from '@stackspec/extra-spec-validators';
import { safeParseEnvironment, safeParseTemplate } from '@stackspec/heat-capabilities';
import { checkImageSpec } from '@stackspec/image-validators';
import { safeLoadInventory } from '@stackspec/placement-query';
import type { Checker, Checkers, CheckInput } from './check.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads `openstack flavor show` properties: a dict, or text like `hw:cpu_policy='dedicated', hw:numa_nodes='2'`. */
export function parseFlavorProperties(value: unknown): Record<string, unknown> | undefined {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return undefined;
  const out: Record<string, string> = {};
  const re = /\s*([^=,\s][^=]*?)='((?:[^'\\]|\\.)*)'\s*(?:,|$)/gy;
  let m: RegExpExecArray | null = re.exec(value);
  let end = 0;
  while (m) {
    out[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
    end = re.lastIndex;
    m = re.exec(value);
  }
  return value.slice(end).trim() === '' ? out : undefined;
}

/** Each flavor of a flavor file with the JSON pointer of its extra specs. */
function flavorsOf(value: unknown): { specs: unknown; base: string; name?: string }[] {
  const one = (v: unknown, base: string) => {
    if (!isObject(v)) return [];
    const name = typeof v.name === 'string' ? v.name : undefined;
    if ('extra_specs' in v)
      return [{ specs: v.extra_specs, base: `${base}/extra_specs`, ...(name ? { name } : {}) }];
    if ('properties' in v)
      return [
        {
          specs: parseFlavorProperties(v.properties) ?? v.properties,
          base: `${base}/properties`,
          ...(name ? { name } : {}),
        },
      ];
    return [];
  };
  if (Array.isArray(value)) return value.flatMap((v, i) => one(v, `/${i}`));
  if (isObject(value) && Array.isArray(value.flavors))
    return value.flavors.flatMap((v, i) => one(v, `/flavors/${i}`));
  return one(value, '');
}

function located(document: SourceDocument, d: Diagnostic, file: string): Diagnostic {
  if (d.line !== undefined) return d;
  // Unknown keys point at the key itself; bad values at the value.
  const onKey = /unknown-key|deprecated-key|invalid-key/.test(d.code);
  const range = document.locate(d.path, { key: onKey });
  return { ...d, file, ...(range ?? {}) };
}

const checkFlavor: Checker = ({ document, file, config }: CheckInput) => {
  const out: Diagnostic[] = [];
  for (const flavor of flavorsOf(document.value)) {
    if (!isObject(flavor.specs)) {
      out.push(
        document.diagnostic({
          code: 'extra-specs/not-a-mapping',
          path: flavor.base,
          message: 'The extra specs must be a mapping of key to value.',
        }),
      );
      continue;
    }
    const r = validateExtraSpecs(
      flavor.specs as Record<string, string>,
      {
        mode: config.extraSpecs.mode as ValidationMode,
        ...(config.extraSpecs.release ? { release: config.extraSpecs.release } : {}),
        basePath: flavor.base,
      } as Parameters<typeof validateExtraSpecs>[1],
    );
    out.push(...r.diagnostics.map((d) => located(document, d, file)));
  }
  return out;
};

const checkDeployTemplate: Checker = ({ document, file }) => {
  const value = document.value;
  const templates: { base: string }[] = Array.isArray(value)
    ? value.map((_, i) => ({ base: `/${i}` }))
    : isObject(value) && Array.isArray(value.deploy_templates)
      ? value.deploy_templates.map((_, i) => ({ base: `/deploy_templates/${i}` }))
      : [{ base: '' }];
  if (templates.length === 1 && templates[0]?.base === '')
    return validateDeployTemplate(document, { file }).diagnostics;
  const out: Diagnostic[] = [];
  const items = (
    Array.isArray(value) ? value : (value as { deploy_templates: unknown[] }).deploy_templates
  ) as unknown[];
  items.forEach((item, i) => {
    const base = templates[i]?.base ?? '';
    for (const d of validateDeployTemplate(item, { file }).diagnostics) {
      const path = `${base}${d.path}`;
      out.push({ ...d, path, ...(document.locate(path, { key: d.code.endsWith('unknown-key') }) ?? {}) });
    }
  });
  return out;
};

const checkImage: Checker = ({ text, file, absolutePath, config, baseDir }) => {
  const roots = config.imageSpecs.resourceRoots.length
    ? config.imageSpecs.resourceRoots.map((r) => resolve(baseDir, r))
    : [dirname(absolutePath)];
  const r = checkImageSpec(text, { filename: file, resourceRoots: roots });
  return r.diagnostics;
};

const checkHeatTemplate: Checker = ({ text, file }) =>
  safeParseTemplate(text, { filename: file }).diagnostics;

const checkHeatEnvironment: Checker = ({ text, file }) =>
  safeParseEnvironment(text, { filename: file }).diagnostics;

const checkInventory: Checker = ({ text, file }) => safeLoadInventory(text, { filename: file }).diagnostics;

/** The checker of every kind, backed by the stackspec packages. */
export function defaultCheckers(): Checkers {
  return {
    flavor: checkFlavor,
    'deploy-template': checkDeployTemplate,
    'image-spec': checkImage,
    'heat-template': checkHeatTemplate,
    'heat-environment': checkHeatEnvironment,
    'placement-inventory': checkInventory,
    'stackspec-config': () => [],
  };
}
