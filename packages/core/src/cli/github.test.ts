import { describe, expect, it } from 'vitest';
import { createDiagnostic } from '../diagnostic.js';
import {
  escapeGithubData,
  escapeGithubProperty,
  formatGithubAnnotations,
  githubAnnotation,
} from './github.js';

describe('the GitHub Actions reporter', () => {
  it('writes one annotation per diagnostic with its position and code as title', () => {
    const text = formatGithubAnnotations([
      createDiagnostic({
        code: 'extra-specs/unknown-key',
        message: "Unknown extra spec 'hw:cpu_polcy'.",
        hint: 'Did you mean hw:cpu_policy?',
        file: 'flavors/typos.yaml',
        line: 3,
        column: 5,
        endLine: 3,
        endColumn: 17,
      }),
      createDiagnostic({
        code: 'extra-specs/deprecated-key',
        severity: 'warning',
        message: 'Old.',
        file: 'a.yaml',
      }),
      createDiagnostic({ code: 'heat/validate/skipped', severity: 'info', message: 'Skipped.' }),
    ]);
    expect(text.split('\n')).toEqual([
      '::notice title=heat/validate/skipped::Skipped.',
      '::warning file=a.yaml,title=extra-specs/deprecated-key::Old.',
      "::error file=flavors/typos.yaml,line=3,col=5,endLine=3,endColumn=17,title=extra-specs/unknown-key::Unknown extra spec 'hw:cpu_polcy'.%0ADid you mean hw:cpu_policy?",
    ]);
  });

  it('prints nothing when there is nothing to report', () => {
    expect(formatGithubAnnotations([])).toBe('');
  });

  it('escapes %, CR and LF in messages, and : and , in properties as well', () => {
    expect(escapeGithubData('100%\r\n::error::x')).toBe('100%25%0D%0A::error::x');
    expect(escapeGithubProperty('a:b,c%d\ne')).toBe('a%3Ab%2Cc%25d%0Ae');
  });

  it('keeps a hostile message and file name on one line, unable to start a command', () => {
    const line = githubAnnotation(
      createDiagnostic({
        code: 'yaml/syntax',
        message: 'bad\n::error file=x::injected\r\n::add-mask::secret %0A',
        file: 'dir,with:odd\nname%.yaml',
        line: 1,
      }),
    );
    expect(line.split(/\r|\n/)).toHaveLength(1);
    expect(line).toBe(
      '::error file=dir%2Cwith%3Aodd%0Aname%25.yaml,line=1,title=yaml/syntax::bad%0A::error file=x::injected%0D%0A::add-mask::secret %250A',
    );
    // The properties end at the first '::': nothing the file name holds can end them sooner.
    const properties = line.slice(2, line.indexOf('::', 2));
    expect(properties.split(',')).toEqual([
      'error file=dir%2Cwith%3Aodd%0Aname%25.yaml',
      'line=1',
      'title=yaml/syntax',
    ]);
  });

  it('writes Windows paths with forward slashes', () => {
    expect(githubAnnotation(createDiagnostic({ code: 'a/b', message: 'm', file: 'dir\\f.yaml' }))).toBe(
      '::error file=dir/f.yaml,title=a/b::m',
    );
  });
});
