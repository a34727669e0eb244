import { CONFIDENCE, claimMisspelling, type Diagnostic, type FileChecker } from '@stackspec/core';
import { validateDeployTemplate } from './schema.js';

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function looksLikeDeployTemplate(v: unknown): boolean {
  return isMapping(v) && typeof v.name === 'string' && Array.isArray(v.steps);
}

const MARKERS = [
  {
    key: 'deploy_templates',
    fits: (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(looksLikeDeployTemplate),
  },
  {
    key: 'steps',
    fits: (v: unknown, doc: Record<string, unknown>) => Array.isArray(v) && typeof doc.name === 'string',
  },
];

/**
 * The checker contract for Ironic deploy template files: one template
 * (`name` and a `steps` list), a list of them, or a `deploy_templates:`
 * list (all `CONFIDENCE.shape`); a close misspelling of `deploy_templates`
 * or of `steps` beside a `name` is reported as one. `check` validates each
 * template as {@link validateDeployTemplate} does, with paths and lines
 * into the whole file; it reads no other file and takes no options.
 *
 * @example
 * const diagnostics = await deployTemplateChecker.check({ path, text, document }, { reader });
 */
export const deployTemplateChecker: FileChecker = {
  kind: 'deploy-template',
  label: 'deploy template',
  recognise({ document }) {
    const value = document?.value;
    if (Array.isArray(value)) {
      return value.length && value.every(looksLikeDeployTemplate)
        ? { confidence: CONFIDENCE.shape }
        : undefined;
    }
    if (!isMapping(value)) return undefined;
    if (looksLikeDeployTemplate(value)) return { confidence: CONFIDENCE.shape };
    if (Array.isArray(value.deploy_templates) && value.deploy_templates.every(looksLikeDeployTemplate)) {
      return { confidence: CONFIDENCE.shape };
    }
    return claimMisspelling(value, MARKERS);
  },
  check({ path: file, document }) {
    const value = document.value;
    const list = Array.isArray(value)
      ? { items: value, base: '' }
      : isMapping(value) && Array.isArray(value.deploy_templates)
        ? { items: value.deploy_templates as unknown[], base: '/deploy_templates' }
        : undefined;
    if (!list) return validateDeployTemplate(document, { file }).diagnostics;
    // Each template is validated alone; its diagnostics are moved to where it sits in the file.
    const out: Diagnostic[] = [];
    list.items.forEach((item, i) => {
      for (const d of validateDeployTemplate(item, { file }).diagnostics) {
        const path = `${list.base}/${i}${d.path}`;
        out.push({ ...d, path, ...(document.locate(path, { key: d.code.endsWith('unknown-key') }) ?? {}) });
      }
    });
    return out;
  },
};
