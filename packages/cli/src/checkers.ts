import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, toJsonPointer, validateWithSchema } from '@stackspec/core';
import { validateDeployTemplate } from '@stackspec/deploy-templates';
import { type ValidationMode, validateFlavorFile } from '@stackspec/extra-spec-validators';
import { resolveEnvironment, safeParseEnvironment, safeParseTemplate } from '@stackspec/heat-capabilities';
import { checkImageSpec } from '@stackspec/image-validators';
import { safeLoadInventory } from '@stackspec/placement-query';
import type { Checker, Checkers } from './check.js';
import { DriverStepsFileSchema } from './cloud.js';
import { registryFor } from './extra-spec-registry.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const checkFlavor: Checker = async ({ text, file, config, baseDir }) => {
  const choice = await registryFor(config, baseDir);
  const reported = choice.pending.splice(0).map((d) => ({ ...d, file: d.file ?? file }));
  const r = validateFlavorFile(text, file, {
    mode: config.extraSpecs.mode as ValidationMode,
    ...(choice.registry ? { registry: choice.registry } : {}),
    ...(config.extraSpecs.release && !choice.registry ? { release: config.extraSpecs.release } : {}),
  });
  return [...reported, ...r.diagnostics];
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

const checkHeatEnvironment: Checker = async ({ text, file, absolutePath, config, baseDir: configDir }) => {
  const baseDir = dirname(absolutePath);
  const pathMap = Object.fromEntries(
    Object.entries(config.heat.pathMap).map(([from, to]) => [from, `${resolve(configDir, to)}/`]),
  );
  const parsed = safeParseEnvironment(text, { filename: file, baseDir, pathMap });
  if (!parsed.ok) return parsed.diagnostics;
  const env = parsed.environment;
  const out = [...parsed.diagnostics];
  const read = (path: string) => readFile(resolve(baseDir, path), 'utf8').catch(() => undefined);
  if (config.heat.checkPaths) {
    for (const entry of env.registry) {
      if (entry.kind !== 'template' || !entry.resolved || /^[a-z]+:\/\//.test(entry.resolved)) continue;
      if ((await read(entry.resolved)) !== undefined) continue;
      const path = ['resource_registry', ...entry.path];
      out.push({
        ...createDiagnostic({
          code: 'heat/template-not-found',
          severity: 'warning',
          message: `'${entry.type}' maps to ${entry.target}, which does not exist.`,
          hint: 'Heat would fail to create any resource of this type.',
          file,
          path: toJsonPointer(path),
        }),
        ...(env.document?.locate(path, { key: true }) ?? {}),
      });
    }
  }
  if (env.registry.some((e) => e.kind === 'candidates')) {
    // Candidate lists must resolve to exactly one template under `requires`.
    const resolved = await resolveEnvironment([env], { readTemplate: read, root: baseDir });
    out.push(...resolved.diagnostics.filter((d) => !parsed.diagnostics.includes(d)));
  }
  return out;
};

const checkInventory: Checker = ({ text, file }) => safeLoadInventory(text, { filename: file }).diagnostics;

const checkDriverSteps: Checker = ({ document }) =>
  validateWithSchema(DriverStepsFileSchema, document, { area: 'driver-steps' }).diagnostics;

/** The checker of every kind, backed by the stackspec packages. */
export function defaultCheckers(): Checkers {
  return {
    flavor: checkFlavor,
    'deploy-template': checkDeployTemplate,
    'image-spec': checkImage,
    'heat-template': checkHeatTemplate,
    'heat-environment': checkHeatEnvironment,
    'placement-inventory': checkInventory,
    'driver-steps': checkDriverSteps,
    'stackspec-config': () => [],
  };
}
