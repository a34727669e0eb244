import { describe, expect, it } from 'vitest';
import { maskSecrets, maskSecretsInText } from './masking.js';

describe('maskSecrets', () => {
  it('masks sensitive keys at any depth and scrubs strings', () => {
    const args = {
      bmc_password: 'x',
      nested: { Admin_Pass: 'y', keep: 'z', deeper: { token: 1 } },
      note: 'admin_pass=foo other',
      list: ['password=1'],
      count: 3,
    };
    expect(maskSecrets(args)).toEqual({
      bmc_password: '******',
      nested: { Admin_Pass: '******', keep: 'z', deeper: { token: '******' } },
      note: 'admin_pass=****** other',
      list: ['password=1'],
      count: 3,
    });
    expect(args.bmc_password).toBe('x');
  });

  it('recurses into an object even when its key looks secret', () => {
    expect(maskSecrets({ password: { user: 'u' } })).toEqual({ password: { user: 'u' } });
  });
});

describe('maskSecretsInText', () => {
  it.each([
    ['password = "abc def"', 'password = "******"'],
    ['--password s3cret rest', '--password ****** rest'],
    ['<password>x</password>', '<password>******</password>'],
    ['no secrets here', 'no secrets here'],
  ])('masks %s', (input, output) => {
    expect(maskSecretsInText(input)).toBe(output);
  });
});
