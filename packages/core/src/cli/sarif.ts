import type { Diagnostic } from '../diagnostic.js';
import { errorCodeHelpUri } from './error-codes.js';

/** Tool information written into SARIF logs. */
export interface SarifToolInfo {
  name: string;
  version: string;
  informationUri?: string;
}

/** What a SARIF rule says about one code; every field is optional. */
export interface SarifRuleText {
  /** One line, such as "Flavor extra specs: unknown key" (default: the code's words, "extra-specs: unknown key"). */
  title?: string;
  /** A few sentences (default: the title). */
  description?: string;
  /** How to act on a result (default: a general sentence). */
  help?: string;
}

/** Options for {@link toSarifLog}. */
export interface SarifLogOptions {
  tool: SarifToolInfo;
  /** Texts of the rule of a code. */
  describeRule?: (code: string) => SarifRuleText;
  /** Documentation URL of a code (default {@link errorCodeHelpUri}: the error code page). */
  helpUri?: (code: string) => string;
}

function level(severity: Diagnostic['severity']): 'error' | 'warning' | 'note' {
  return severity === 'info' ? 'note' : severity;
}

const DEFAULT_HELP =
  'Each result says what is wrong and what was expected; where stackspec knows the fix, the message ends with it ("Did you mean …?"). The help link lists every code.';

function rule(code: string, found: readonly Diagnostic[], options: SarifLogOptions): Record<string, unknown> {
  const text = options.describeRule?.(code) ?? {};
  const [area = code, ...rest] = code.split('/');
  const title = text.title ?? `${area}: ${rest.join(' ').replace(/-/g, ' ') || area}`;
  const worst = found.some((d) => d.severity === 'error')
    ? 'error'
    : found.some((d) => d.severity === 'warning')
      ? 'warning'
      : 'note';
  return {
    id: code,
    name: code.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()),
    shortDescription: { text: title },
    fullDescription: { text: text.description ?? `${title}.` },
    help: { text: text.help ?? DEFAULT_HELP },
    helpUri: (options.helpUri ?? errorCodeHelpUri)(code),
    defaultConfiguration: { level: worst },
  };
}

/**
 * A SARIF 2.1.0 log of diagnostics, for code-scanning services: one rule
 * per code (with a `helpUri` into the documentation), one result per
 * diagnostic, with the file and region when known (columns count UTF-16
 * code units, as JavaScript strings do, and the log says so) and the hint
 * in the message.
 *
 * @example
 * const log = toSarifLog(diagnostics, { tool: { name: 'stackspec-heat', version: '0.2.0' } });
 */
export function toSarifLog(
  diagnostics: readonly Diagnostic[],
  options: SarifLogOptions,
): Record<string, unknown> {
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
  const { tool } = options;
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
                options,
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
