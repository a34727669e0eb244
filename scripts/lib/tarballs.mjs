// Shared by scripts/check-tarballs.mjs and scripts/measure-packages.mjs: the
// published packages of the workspace, packed as `pnpm pack` makes them (it
// turns `workspace:` and `catalog:` ranges into real ones) and installed with
// plain npm into a project outside the workspace, as a user would.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '..', '..');
const PNPM_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager.split(
  '@',
)[1];
const RECORDER = join(import.meta.dirname, 'record-loads.mjs');

/**
 * The packages under packages/: name, version, folder, entry specifiers
 * (`@stackspec/x`, `@stackspec/x/cli`…) and bins, from each package.json.
 */
export function readPackages() {
  return readdirSync(join(ROOT, 'packages'))
    .filter((dir) => existsSync(join(ROOT, 'packages', dir, 'package.json')))
    .map((dir) => {
      const pkgDir = join(ROOT, 'packages', dir);
      const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
      const entries = Object.entries(pkg.exports ?? {})
        .filter(([, target]) => typeof target === 'object')
        .map(([subpath]) => `${pkg.name}${subpath.slice(1)}`);
      const bins = typeof pkg.bin === 'string' ? { [pkg.name.split('/').pop()]: pkg.bin } : (pkg.bin ?? {});
      return {
        dir: pkgDir,
        name: pkg.name,
        version: pkg.version,
        entries,
        bins: Object.keys(bins),
        dependencies: pkg.dependencies ?? {},
        peerDependencies: pkg.peerDependencies ?? {},
        private: pkg.private === true,
      };
    })
    .filter((p) => !p.private)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Runs a command; throws with its output when it fails. */
export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${r.status}\n${(r.stdout ?? '').slice(-4000)}${(r.stderr ?? '').slice(-4000)}`,
    );
  }
  return r;
}

/** A new empty folder in the system's temporary directory (outside the workspace). */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `stackspec-${prefix}-`));
}

/**
 * Packs every package with pnpm into `dest` and returns the tarball of each
 * package name. Needs a build first (`pnpm build`): the tarballs hold dist/.
 */
export function packAll(dest, packages = readPackages()) {
  for (const p of packages) {
    if (!existsSync(join(p.dir, 'dist'))) {
      throw new Error(`${p.name} has no dist/ folder; run \`pnpm build\` first.`);
    }
  }
  run(
    'npx',
    ['--yes', `pnpm@${PNPM_VERSION}`, '-r', '--filter', './packages/*', 'pack', '--pack-destination', dest],
    { cwd: ROOT },
  );
  const tarballs = new Map();
  for (const p of packages) {
    const file = join(dest, `${p.name.replace(/^@/, '').replace('/', '-')}-${p.version}.tgz`);
    if (!existsSync(file)) throw new Error(`pnpm pack made no ${file}`);
    tarballs.set(p.name, file);
  }
  return tarballs;
}

/** The manifest inside a tarball, as npm will read it. */
export function packedManifest(tarball) {
  return JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']).stdout);
}

/**
 * A project in `dir` with `specs` installed by npm (tarball paths or
 * `name@range`), scripts skipped as a cautious user would (ssh2's optional
 * native speed-up is then not compiled; it works without it).
 */
export function installProject(dir, specs, { type = 'module' } = {}) {
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'stackspec-tarball-user', private: true, type }, null, 2)}\n`,
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...specs], {
    cwd: dir,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

/**
 * The package a loaded file belongs to: the name after its last
 * `node_modules/`, or `node:x` for a built-in module; undefined for other files.
 */
export function packageOf(urlOrPath) {
  if (urlOrPath.startsWith('node:')) return urlOrPath;
  const path = urlOrPath.startsWith('file:') ? fileURLToPath(urlOrPath) : urlOrPath;
  const parts = path.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return undefined;
  const first = parts[at + 1];
  return first.startsWith('@') ? `${first}/${parts[at + 2]}` : first;
}

/**
 * Runs node with `args` in `cwd` (or, with `command`, that executable, such
 * as an installed bin, with the recorder in NODE_OPTIONS), recording every
 * module the process loads (ES modules through a resolve hook, CommonJS
 * through require.cache). Returns the exit status, the output, and the set of
 * packages and built-in modules loaded.
 */
export function runRecorded(args, { cwd, env = {}, timeout = 120_000, command } = {}) {
  const dir = tempDir('loads');
  const log = join(dir, 'loads.txt');
  writeFileSync(log, '');
  const vars = { ...process.env, NO_COLOR: '1', ...env, STACKSPEC_LOAD_LOG: log };
  const r = command
    ? spawnSync(command, args, {
        cwd,
        encoding: 'utf8',
        timeout,
        env: { ...vars, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${RECORDER}`.trim() },
        maxBuffer: 64 * 1024 * 1024,
      })
    : spawnSync(process.execPath, ['--import', RECORDER, ...args], {
        cwd,
        encoding: 'utf8',
        timeout,
        env: vars,
        maxBuffer: 64 * 1024 * 1024,
      });
  const loaded = new Set();
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const name = line && packageOf(line);
    if (name) loaded.add(name);
  }
  rmSync(dir, { recursive: true, force: true });
  if (r.error && r.error.code !== 'ETIMEDOUT') throw r.error;
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', loaded };
}

/** Imports (`esm`) or requires (`cjs`) `specifier` from `cwd`, recording loads; prints its export names. */
export function loadEntry(specifier, format, cwd) {
  const code =
    format === 'esm'
      ? `const m = await import(${JSON.stringify(specifier)});
         console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort()));`
      : `const m = require(${JSON.stringify(specifier)});
         console.log(JSON.stringify(Object.keys(m).sort()));`;
  const args = format === 'esm' ? ['--input-type=module', '-e', code] : ['--input-type=commonjs', '-e', code];
  const r = runRecorded(args, { cwd });
  let names;
  try {
    names = r.status === 0 ? JSON.parse(r.stdout.trim().split('\n').pop() ?? '') : undefined;
  } catch {
    names = undefined;
  }
  return { ...r, names };
}
