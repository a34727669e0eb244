import { CONFIDENCE, createMemoryResourceReader, type FileChecker } from '@stackspec/core';
import { describe, expect, it } from 'vitest';
import { describeCheckerContract } from '../../../test-support/checker-contract.js';
import { type CheckerEntry, checkText } from './check.js';
import { BUILTIN_CHECKERS, defaultCheckers } from './checkers.js';
import { defaultConfig } from './config.js';
import { driverStepsChecker } from './driver-steps.js';

describeCheckerContract({
  checker: driverStepsChecker,
  fixtures: [
    { path: 'steps.yaml', text: 'driver_steps:\n  - {interface: deploy, step: deploy, priority: 100}\n' },
  ],
  invalid: [
    { path: 'steps.yaml', text: 'driver_steps:\n  - {interface: deploy, step: deploy, priority: -1}\n' },
  ],
});

// A kind no package knows: files with a `widgets` list, each widget needing a file beside it.
const widgetChecker: FileChecker<{ suffix: string }> = {
  kind: 'widget',
  label: 'widget list',
  recognise: ({ document }) => {
    const v = document?.value as { widgets?: unknown } | null;
    return Array.isArray(v?.widgets) ? { confidence: CONFIDENCE.marker } : undefined;
  },
  check: ({ document }, { reader, options }) =>
    ((document.value as { widgets: string[] }).widgets ?? []).flatMap((w, i) =>
      reader.read(`${w}${options?.suffix ?? ''}`).ok
        ? []
        : [
            document.diagnostic({
              code: 'widget/missing',
              message: `No file for ${w}.`,
              path: `/widgets/${i}`,
            }),
          ],
    ),
};

describe('stackspec check with a list of checkers', () => {
  const entry: CheckerEntry<{ suffix: string }> = {
    checker: widgetChecker,
    enabled: (c) => c.deployTemplates.enabled,
    prepare: () => ({
      reader: createMemoryResourceReader({ 'a.txt': 'a' }),
      options: { suffix: '.txt' },
      diagnostics: [{ code: 'widget/note', severity: 'info', message: 'Checked.', path: '' }],
    }),
  };
  const checkers: CheckerEntry[] = [...defaultCheckers(), entry];

  it("checks a kind a checker teaches it, with the entry's reader and options", async () => {
    const r = await checkText('widgets: [a, b]\n', 'w.yaml', { config: defaultConfig(), checkers });
    expect(r.kind).toBe('widget');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: 'widget/note', file: 'w.yaml' }),
      expect.objectContaining({ code: 'widget/missing', file: 'w.yaml', line: 1, message: 'No file for b.' }),
    ]);
  });

  it('skips the kind when its config section turns it off', async () => {
    const off = defaultConfig();
    off.deployTemplates.enabled = false;
    const r = await checkText('widgets: [a]\n', 'w.yaml', { config: off, checkers });
    expect(r).toMatchObject({ kind: 'widget', skipped: 'disabled', diagnostics: [] });
  });

  it('reports a recogniser that throws as stackspec/check/internal on the file instead of ending the run', async () => {
    const broken: CheckerEntry = {
      checker: {
        kind: 'broken',
        label: 'broken',
        recognise: () => {
          throw new TypeError('boom');
        },
        check: () => [],
      },
    };
    const r = await checkText('a: 1\n', 'a.yaml', { config: defaultConfig(), checkers: [broken] });
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        code: 'stackspec/check/internal',
        file: 'a.yaml',
        message: expect.stringContaining('boom'),
      }),
    ]);
  });

  it("lists each package's checkers in the order that breaks ties as the built-in recognition always did", () => {
    expect(BUILTIN_CHECKERS.map((e) => e.checker.kind)).toEqual([
      'stackspec-config',
      'heat-template',
      'image-spec',
      'driver-steps',
      'flavor',
      'deploy-template',
      'placement-inventory',
      'heat-environment',
    ]);
  });
});
