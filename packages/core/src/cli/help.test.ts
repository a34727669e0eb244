import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../../../test-support/cli.js';
import { deprecatedOption, deprecationNote, warnDeprecated } from './deprecation.js';
import { addExamples } from './help.js';

describe('addExamples', () => {
  it('ends --help with the examples, a comment line above each command', () => {
    const command = addExamples(new Command('tool').description('Does things.'), [
      { description: 'Do a thing', command: 'tool thing' },
      { description: 'Do it as JSON', command: 'tool thing -f json' },
    ]);
    expect(command.helpInformation()).not.toContain('Examples');
    let help = '';
    command
      .configureOutput({
        writeOut: (s) => {
          help += s;
        },
      })
      .outputHelp();
    expect(help).toMatch(
      /\n\nExamples:\n {2}# Do a thing\n {2}\$ tool thing\n\n {2}# Do it as JSON\n {2}\$ tool thing -f json\n$/,
    );
  });
});

describe('deprecated options', () => {
  it('parse as before but stay out of --help', async () => {
    let seen: unknown;
    const command = new Command('tool')
      .exitOverride()
      .addOption(deprecatedOption('--json', '-f json'))
      .action((opts) => {
        seen = opts;
      });
    await command.parseAsync(['--json'], { from: 'user' });
    expect(seen).toEqual({ json: true });
    expect(command.helpInformation()).not.toContain('--json');
  });

  it('say on standard error what to use instead', () => {
    const io = memoryIO({ env: { NO_COLOR: '1' } });
    warnDeprecated(io, '--json', '-f json');
    expect(io.err()).toBe(
      'warning: --json is deprecated and will be removed in the next minor version; use -f json instead.\n',
    );
    expect(io.out()).toBe('');
    expect(deprecationNote('-f FILE', '--file FILE')).toContain('use --file FILE instead');
  });
});
