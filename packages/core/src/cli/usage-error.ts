import { StackspecError, type StackspecErrorOptions } from '../errors.js';

/** A command line that cannot be acted on: an unknown option, a missing argument, a bad format (exit code 2). */
export class UsageError extends StackspecError {
  constructor(message: string, options: StackspecErrorOptions = {}) {
    super('usage', 400, message, { code: 'cli/usage', ...options });
    this.name = 'UsageError';
  }
}
