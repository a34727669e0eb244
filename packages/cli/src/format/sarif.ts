import { type SarifToolInfo, toSarifLog } from '@stackspec/core/cli';
import type { CheckReport } from '../check.js';

export type { SarifToolInfo } from '@stackspec/core/cli';

// What each code area is about, and which package reports it.
const AREAS: Readonly<Record<string, { label: string; by: string }>> = {
  'extra-specs': { label: 'Flavor extra specs', by: '@stackspec/extra-spec-validators' },
  plugin: { label: 'Extra spec plugins', by: '@stackspec/extra-spec-validators' },
  'deploy-templates': { label: 'Ironic deploy templates', by: '@stackspec/deploy-templates' },
  'image-spec': { label: 'Image validation specs', by: '@stackspec/image-validators' },
  image: { label: 'Image validation specs', by: '@stackspec/image-validators' },
  heat: { label: 'Heat templates and environments', by: '@stackspec/heat-capabilities' },
  inventory: { label: 'Placement inventories', by: '@stackspec/placement-query' },
  'driver-steps': { label: 'Driver deploy steps', by: '@stackspec/cli' },
  yaml: { label: 'YAML and JSON syntax', by: '@stackspec/core' },
  json: { label: 'YAML and JSON syntax', by: '@stackspec/core' },
  fs: { label: 'Files and folders', by: '@stackspec/core' },
  check: { label: 'stackspec check', by: '@stackspec/cli' },
  cli: { label: 'stackspec configuration', by: '@stackspec/cli' },
  config: { label: 'stackspec configuration', by: '@stackspec/cli' },
};

/** A readable title for a code: `extra-specs/unknown-key` → "Flavor extra specs: unknown key". */
function describeCode(code: string): { title: string; by: string | undefined } {
  const [area = code, ...rest] = code.split('/');
  const known = AREAS[area];
  const what = rest.join(' ').replace(/-/g, ' ') || area;
  return { title: `${known?.label ?? area}: ${what}`, by: known?.by };
}

/**
 * A SARIF 2.1.0 log of a check run, for code-scanning services: core's
 * `toSarifLog` over every diagnostic of the report, each rule titled by its
 * area and name, naming the package that reports it, and linking its entry
 * on the error code page (`helpUri`).
 */
export function toSarif(report: CheckReport, tool: SarifToolInfo): Record<string, unknown> {
  const diagnostics = [...report.walkDiagnostics, ...report.files.flatMap((f) => f.diagnostics)];
  return toSarifLog(diagnostics, {
    tool,
    describeRule: (code) => {
      const { title, by } = describeCode(code);
      return {
        title,
        description: `${title}.${by ? ` Reported by ${by}; the help link says what the code means.` : ''}`,
      };
    },
  });
}
