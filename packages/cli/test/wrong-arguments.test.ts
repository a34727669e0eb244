// Every validateX and parseX that the packages export, given arguments of
// the wrong type (as JavaScript callers and values read from configuration
// can), answers with a result or one of core's errors saying what was
// expected: never a TypeError from deep inside.
import * as core from '@stackspec/core';
import { isStackspecError } from '@stackspec/core';
import * as deployTemplates from '@stackspec/deploy-templates';
import * as extraSpecs from '@stackspec/extra-spec-validators';
import * as heat from '@stackspec/heat-capabilities';
import * as image from '@stackspec/image-validators';
import * as placement from '@stackspec/placement-query';
import { describe, expect, it } from 'vitest';

const WRONG: unknown[] = [undefined, null, 0, '', 'x', {}, [], true, { name: 1 }, Symbol('s')];
const PACKAGES = { core, deployTemplates, extraSpecs, heat, image, placement };

describe.each(Object.entries(PACKAGES))('%s', (_pkg, api) => {
  const functions = Object.entries(api).filter(
    ([name, value]) => typeof value === 'function' && /^(validate|parse)[A-Z]/.test(name),
  ) as [string, (...args: unknown[]) => unknown][];

  it.each(functions)('%s answers wrong argument types with our error', async (name, fn) => {
    const foreign: string[] = [];
    for (const a of WRONG) {
      for (const b of [undefined, {}, 'x']) {
        try {
          await fn(a, b);
        } catch (e) {
          if (!isStackspecError(e)) foreign.push(`${name}(${String(a)}, ${String(b)}): ${String(e)}`);
        }
      }
    }
    expect(foreign).toEqual([]);
  });
});
