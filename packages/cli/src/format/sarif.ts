import type { Diagnostic } from '@stackspec/core';
import type { CheckReport } from '../check.js';

/** Tool information written into SARIF logs. */
export interface SarifToolInfo {
  name: string;
  version: string;
  informationUri?: string;
}

function level(severity: Diagnostic['severity']): 'error' | 'warning' | 'note' {
  return severity === 'info' ? 'note' : severity;
}

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

function rule(code: string, found: readonly Diagnostic[]): Record<string, unknown> {
  const { title, by } = describeCode(code);
  const worst = found.some((d) => d.severity === 'error')
    ? 'error'
    : found.some((d) => d.severity === 'warning')
      ? 'warning'
      : 'note';
  return {
    id: code,
    name: code.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    shortDescription: { text: title },
    fullDescription: {
      text: `${title}.${by ? ` Reported by ${by}, whose README lists every code it reports.` : ''}`,
    },
    help: {
      text: 'Each result says what is wrong and what was expected; where stackspec knows the fix, the message ends with it ("Did you mean …?").',
    },
    defaultConfiguration: { level: worst },
  };
}

/**
 * A SARIF 2.1.0 log of a check run, for code-scanning services: one rule per
 * diagnostic code (a title from its area and name, and the package that
 * reports it), one result per diagnostic, with the file and region
 * when known (columns count UTF-16 code units, as JavaScript strings do) and
 * the hint in the message.
 */
export function toSarif(report: CheckReport, tool: SarifToolInfo): Record<string, unknown> {
  const diagnostics = [...report.walkDiagnostics, ...report.files.flatMap((f) => f.diagnostics)];
  const codes = [...new Set(diagnostics.map((d) => d.code))].sort();
  const results = diagnostics.map((d) => {
    const result: Record<string, unknown> = {
      ruleId: d.code,
      ruleIndex: codes.indexOf(d.code),
      level: level(d.severity),
      message: { text: d.hint ? `${d.message} ${d.hint}` : d.message },
    };
    if (d.file) {
      const region: Record<string, number> = {};
      if (d.line) region.startLine = d.line;
      if (d.line && d.column) region.startColumn = d.column;
      if (d.endLine) region.endLine = d.endLine;
      if (d.endLine && d.endColumn) region.endColumn = d.endColumn;
      result.locations = [
        {
          physicalLocation: {
            artifactLocation: { uri: d.file.split('\\').join('/'), uriBaseId: '%SRCROOT%' },
            ...(Object.keys(region).length ? { region } : {}),
          },
          ...(d.path ? { logicalLocations: [{ fullyQualifiedName: d.path, kind: 'member' }] } : {}),
        },
      ];
    }
    return result;
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            ...(tool.informationUri ? { informationUri: tool.informationUri } : {}),
            rules: codes.map((id) =>
              rule(
                id,
                diagnostics.filter((d) => d.code === id),
              ),
            ),
          },
        },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}
