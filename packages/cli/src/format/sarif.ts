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

/**
 * A SARIF 2.1.0 log of a check run, for code-scanning services: one rule per
 * diagnostic code, one result per diagnostic, with the file and region when
 * known and the hint as a fix description.
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
            rules: codes.map((id) => ({ id, name: id, shortDescription: { text: id } })),
          },
        },
        columnKind: 'unicodeCodePoints',
        results,
      },
    ],
  };
}
