import { isStackspecError, StackspecError, type StackspecErrorOptions } from '@stackspec/core';

/** Options of {@link Remote.exec}. */
export interface ExecOptions {
  /** Variables set for the command only; values reach it literally (never expanded by a shell). */
  env?: Readonly<Record<string, string>>;
  /** Data written to the command's standard input, which is then closed. Without it stdin is empty. */
  input?: string | Uint8Array;
  /** Run as root (through passwordless `sudo` when the remote user is not root). Default `false`. */
  asRoot?: boolean;
}

/** What a command did. A non-zero `exitCode` is a normal result, not an exception. */
export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link Remote.writeFile}. */
export interface WriteFileOptions {
  /** Permission bits, e.g. `0o755`; default: the target's umask. */
  mode?: number;
  /** Write as root. Default `false`. */
  asRoot?: boolean;
}

/**
 * The machine a spec is validated against. Implement it to validate anything
 * reachable: the package ships local, chroot, SSH and dry-run remotes.
 *
 * `exec` runs `command` with a POSIX shell (`sh -c`) and resolves even when the
 * command fails; it rejects only when the command could not be run at all
 * (a lost connection, a missing binary for the transport itself).
 */
export interface Remote {
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  writeFile(path: string, content: string | Uint8Array, options?: WriteFileOptions): Promise<void>;
  /** The distribution id in lower case, such as `ubuntu`, `centos`, `debian`, `rhel`. */
  distro(): Promise<string>;
  /** Releases connections; optional. */
  close?(): Promise<void>;
}

/**
 * A remote could not run a command or reach its machine (connection refused,
 * host key rejected, timeout). Kind `http`, status 502; codes under `image/remote/`.
 */
export class RemoteError extends StackspecError {
  constructor(message: string, options: StackspecErrorOptions = {}) {
    super('http', 502, message, { code: 'image/remote/failed', ...options });
    this.name = 'RemoteError';
  }
}

/**
 * The shell snippet the real remotes use to name their distribution:
 * os-release's `ID`, else `lsb_release -is` (what the first Sahara release asked).
 */
export const DISTRO_PROBE =
  'if [ -r /etc/os-release ]; then . /etc/os-release && printf "%s\\n" "$ID"; ' +
  'elif command -v lsb_release >/dev/null 2>&1; then lsb_release -is; ' +
  'elif [ -r /etc/redhat-release ]; then echo rhel; elif [ -r /etc/debian_version ]; then echo debian; fi';

/** Runs {@link DISTRO_PROBE} through `exec` and normalises the answer. Throws `RemoteError` when nothing answers. */
export async function probeDistro(exec: (command: string) => Promise<ExecResult>): Promise<string> {
  const r = await exec(DISTRO_PROBE);
  const id = r.stdout.trim().split('\n')[0]?.trim().toLowerCase() ?? '';
  if (r.exitCode !== 0 || !id) {
    throw new RemoteError('The distribution of the machine could not be determined (no /etc/os-release).', {
      code: 'image/remote/unknown-distro',
    });
  }
  return id;
}

/**
 * A shell script (taking the target path as `$1` and the content on stdin)
 * that replaces a file the safe way: the content goes to a new temporary file
 * beside the target, which is then renamed over it. A symlink planted at the
 * target (say in /tmp) is replaced, never followed. Without `mode` the file
 * gets the usual umask permissions.
 */
export function replaceFileScript(mode?: number): string {
  const chmod =
    mode !== undefined
      ? `chmod ${(mode & 0o7777).toString(8)} "$t"`
      : `chmod "$(printf %o $(( 0666 & ~0$(umask) )))" "$t"`;
  return `t=$(mktemp "$(dirname -- "$1")/.siv-write-XXXXXX") && { cat > "$t" && ${chmod} && mv -f -- "$t" "$1" || { rm -f -- "$t"; exit 1; }; }`;
}

/**
 * Makes a check, run at most once, that passwordless sudo works for the
 * remote's user. `probe` runs `sudo -n true` and resolves its result (or
 * rejects with `image/remote/spawn-failed` when sudo cannot even start). A sudo
 * that asks for a password, or is missing, then fails every root command as
 * `image/remote/sudo-failed`, instead of each command failing with sudo's words in
 * its output. Any other rejection (a lost connection) passes through and the
 * check runs again next time.
 */
export function createSudoCheck(probe: () => Promise<ExecResult>, who: string): () => Promise<void> {
  let checked: Promise<void> | undefined;
  const fail = (detail: string, cause?: unknown) =>
    new RemoteError(
      `Commands as root need passwordless sudo for ${who}, but \`sudo -n true\` failed (${detail}). Allow the user to run sudo without a password (a NOPASSWD rule), or connect as root.`,
      { code: 'image/remote/sudo-failed', ...(cause !== undefined ? { cause } : {}) },
    );
  const run = async () => {
    let r: ExecResult;
    try {
      r = await probe();
    } catch (e) {
      if (isStackspecError(e) && e.code === 'image/remote/spawn-failed') throw fail(e.message, e);
      checked = undefined;
      throw e;
    }
    if (r.exitCode !== 0) {
      const line = `${r.stderr}\n${r.stdout}`.split('\n').find((l) => l.trim());
      throw fail(line?.trim() ?? `exit status ${r.exitCode}`);
    }
  };
  return () => {
    checked ??= run();
    return checked;
  };
}
