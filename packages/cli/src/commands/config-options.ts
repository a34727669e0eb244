import { type Command, Option } from 'commander';

/**
 * Adds `--config` and `--mode` to a command that reads a cloud's config
 * file: `check` and `schedule` find and override it the same way.
 */
export function addConfigOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      'config file (default: stackspec.config.yaml found from the working directory up)',
    )
    .addOption(
      new Option('--mode <mode>', 'extra spec validation mode').choices([
        'strict',
        'permissive',
        'off',
        'nova',
      ]),
    );
}
