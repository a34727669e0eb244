// The packages as users get them: packs every package (after `pnpm build`),
// installs the tarballs with plain npm into a fresh project outside the
// workspace (with the lowest zod the packages accept as a peer), then
//
//   1. imports every entry with import() and require(), and compares their names,
//      and checks that every package the built code imports is declared;
//   2. fails when a main entry loads a dependency only a subpath or a command
//      line needs (PGlite, pg, ssh2, commander, Hono's Node server, fast-glob),
//      or, for core, any Node built-in module;
//   3. typechecks a file importing every entry with TypeScript's `node16`
//      (ESM and CommonJS), `bundler` and `node10` module resolutions;
//   4. runs every bin with --version (the package's version), --help, and
//      one real command on scripts/tarball-sample/ (and `stackspec check`
//      must not load PGlite, pg or ssh2).
//
// The load detector proves first that it can fail (a synthetic package that
// loads a forbidden dependency must be caught, in ESM and in CommonJS), and
// every forbidden dependency must be seen when its own subpath loads it.
//
//   node scripts/check-tarballs.mjs               the whole check (CI's "tarball check")
//   node scripts/check-tarballs.mjs --self-check  only the detector's own check (no build needed)
//   node scripts/check-tarballs.mjs --keep        leave the temporary project for inspection
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import {
  installProject,
  loadEntry,
  packAll,
  packedManifest,
  ROOT,
  readPackages,
  run,
  runRecorded,
  tempDir,
} from './lib/tarballs.mjs';

const argv = process.argv.slice(2);
const SELF_CHECK_ONLY = argv.includes('--self-check');
const KEEP = argv.includes('--keep');

/** Dependencies that only a subpath or a command line needs, and who needs them. */
const SUBPATH_ONLY = new Map([
  ['@electric-sql/pglite', '@stackspec/deploy-templates/pglite'],
  ['pg', '@stackspec/deploy-templates/postgres'],
  ['ssh2', '@stackspec/image-validators/ssh'],
  ['commander', 'the command lines (the ./cli subpaths and the bins)'],
  ['@hono/node-server', "@stackspec/core/node's startServer, when a server starts"],
  ['fast-glob', "@stackspec/core/node's walkFiles, when it applies ignore patterns"],
]);
/** @stackspec/cli is the command line: its main entry (`runStackspec`, `checkPaths`) needs these. */
const MAIN_MAY_LOAD = new Map([['@stackspec/cli', new Set(['commander', 'fast-glob'])]]);
/** Main entries that must load on a runtime without Node's built-in modules (a worker). */
const NO_BUILTINS = new Set(['@stackspec/core']);
/** What no command's --help may load: the stores and the SSH client are loaded by the commands that use them. */
const HELP_MUST_NOT_LOAD = ['@electric-sql/pglite', 'pg', 'ssh2'];

/** What `stackspec check` must not load: the stores and the SSH client. */
const CHECK_MUST_NOT_LOAD = ['@electric-sql/pglite', 'pg', 'ssh2'];

/**
 * Each forbidden dependency, loaded the way its own subpath loads it: the
 * detector must see it there, or the check above would pass for nothing.
 */
const POSITIVE_CONTROLS = [
  ['@electric-sql/pglite', `await import('@stackspec/deploy-templates/pglite');`],
  ['pg', `await import('@stackspec/deploy-templates/postgres');`],
  ['ssh2', `await import('@stackspec/image-validators/ssh');`],
  ['commander', `await import('@stackspec/core/cli');`],
  [
    '@hono/node-server',
    `const { startServer } = await import('@stackspec/core/node');
     const server = await startServer(() => new Response('ok'));
     await server.close();`,
  ],
  [
    'fast-glob',
    `const { walkFiles } = await import('@stackspec/core/node');
     await walkFiles([process.env.SAMPLE], { ignore: ['*.md'] });`,
  ],
];

const SAMPLE_SOURCE = join(ROOT, 'scripts', 'tarball-sample');
const STEPS = JSON.stringify([{ interface: 'raid', step: 'create_configuration', args: {}, priority: 150 }]);

/**
 * One real command per bin, run in the project with the sample folder at
 * `sample/`; `ok` judges its standard output.
 */
const REAL_COMMANDS = {
  stackspec: {
    args: ['check', 'sample'],
    ok: (out) => /no problems in 6 files/.test(out),
    mustNotLoad: CHECK_MUST_NOT_LOAD,
  },
  'stackspec-extra-specs': {
    args: ['validate', 'sample/flavors.yaml'],
    ok: (out) => /no problems/.test(out),
  },
  'stackspec-placement': {
    args: ['query', '-i', 'sample/inventory.yaml', 'resources=VCPU:2&required=HW_CPU_X86_AVX2', '-f', 'json'],
    ok: (out) => JSON.parse(out).allocation_requests.length === 1,
  },
  'stackspec-baremetal': {
    args: [
      '--data-dir',
      'db',
      'deploy',
      'template',
      'create',
      'CUSTOM_RAID1',
      '--steps',
      STEPS,
      '-f',
      'json',
    ],
    ok: (out) => JSON.parse(out).name === 'CUSTOM_RAID1',
  },
  'stackspec-image': {
    args: ['explain', 'sample/image.yaml'],
    ok: (out) => /argument_case: by the value of java_distro/.test(out),
  },
  'stackspec-heat': {
    args: ['validate', 'sample/template.yaml', 'sample/env.yaml'],
    ok: (out) => /no problems in 2 files/.test(out),
  },
};

const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`  FAIL ${what}`);
};
const ok = (what) => console.log(`  ok   ${what}`);
const clock = Date.now();
const elapsed = () => `${Math.round((Date.now() - clock) / 1000)}s`;

/**
 * The dependencies in `loaded` that `pkg`'s main entry must not load:
 * subpath-only ones it is not allowed, and built-in modules where none may load.
 */
function leaksOf(
  pkg,
  loaded,
  rules = { subpathOnly: SUBPATH_ONLY, mainMayLoad: MAIN_MAY_LOAD, noBuiltins: NO_BUILTINS },
) {
  const allowed = rules.mainMayLoad.get(pkg) ?? new Set();
  const leaks = [...loaded].filter((dep) => rules.subpathOnly.has(dep) && !allowed.has(dep));
  if (rules.noBuiltins.has(pkg)) leaks.push(...[...loaded].filter((dep) => dep.startsWith('node:')));
  return leaks.sort();
}

const BUILTINS = new Set(builtinModules);
// A bare specifier in built code (`from 'x'`, `require('x')`, `import('x')`); a name check keeps out prose.
const SPECIFIER =
  /(?:\bfrom |\bimport\(|\brequire\()\s*['"]((?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*)(?:\/[^'"]*)?['"]/g;

/** Packages `code` imports that `declared` does not list (built-ins and `self` excepted). */
function undeclaredImports(code, declared, self) {
  const out = new Set();
  for (const m of code.matchAll(SPECIFIER)) {
    const name = m[1];
    if (name === self || declared.has(name) || BUILTINS.has(name) || name.startsWith('node:')) continue;
    out.add(name);
  }
  return [...out].sort();
}

/** Third-party packages (not ours, not built-ins) in a set of loaded names. */
const foreign = (loaded) =>
  [...loaded].filter((d) => !d.startsWith('@stackspec/') && !d.startsWith('node:')).sort();

// ---------------------------------------------------------------------------
// 0. The detector can fail: synthetic packages, one loading a forbidden dependency.

function selfCheck() {
  console.log('\n== the load detector can fail');
  const dir = tempDir('tarball-selfcheck');
  const write = (file, text) => {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  write('package.json', '{ "private": true }');
  write('node_modules/heavy/package.json', '{ "name": "heavy", "main": "index.js" }');
  write('node_modules/heavy/index.js', 'module.exports = { heavy: true };');
  for (const [name, mjs, cjs] of [
    ['leaky', `import 'heavy';\nexport const x = 1;`, `require('heavy');\nexports.x = 1;`],
    ['lean', 'export const x = 1;', 'exports.x = 1;'],
    ['builtin', `import 'node:fs';\nexport const x = 1;`, `require('node:fs');\nexports.x = 1;`],
  ]) {
    write(
      `node_modules/${name}/package.json`,
      JSON.stringify({ name, exports: { '.': { import: './index.mjs', require: './index.cjs' } } }),
    );
    write(`node_modules/${name}/index.mjs`, mjs);
    write(`node_modules/${name}/index.cjs`, cjs);
  }
  const rules = {
    subpathOnly: new Map([['heavy', 'a subpath']]),
    mainMayLoad: new Map([['allowed-leaky', new Set(['heavy'])]]),
    noBuiltins: new Set(['builtin']),
  };
  const expectLeaks = (pkg, format, as, expected) => {
    const r = loadEntry(pkg, format, dir);
    const leaks = r.status === 0 ? leaksOf(as, r.loaded, rules) : [`exit ${r.status}: ${r.stderr}`];
    const what = `${format} ${pkg}${as !== pkg ? ` (as ${as})` : ''}: leaks [${leaks}]`;
    if (JSON.stringify(leaks) === JSON.stringify(expected)) ok(`${what}, as expected`);
    else fail(`${what}, expected [${expected}]`);
  };
  for (const format of ['esm', 'cjs']) {
    expectLeaks('leaky', format, 'leaky', ['heavy']);
    expectLeaks('lean', format, 'lean', []);
    expectLeaks('leaky', format, 'allowed-leaky', []);
  }
  // Built-ins are seen by the ES module hook (require() of a built-in leaves no trace in require.cache).
  expectLeaks('builtin', 'esm', 'builtin', ['node:fs']);
  rmSync(dir, { recursive: true, force: true });
  const code = `import { a } from 'declared';\nconst b = require('hidden/sub');\nimport('fs');\nconst s = "from 'two words'";`;
  const found = undeclaredImports(code, new Set(['declared']), 'self');
  if (JSON.stringify(found) === '["hidden"]') ok('an import the manifest does not declare is found');
  else fail(`undeclared imports: found [${found}], expected [hidden]`);
}

selfCheck();
if (SELF_CHECK_ONLY) finish();

// ---------------------------------------------------------------------------
// Pack, and install as a user would.

const work = tempDir('tarball-check');
const project = join(work, 'project');
mkdirSync(project);
console.log(`\n== pack and install (${elapsed()}) in ${work}`);
const packages = readPackages();
const tarballs = packAll(join(work, 'tarballs'), packages);
const manifests = new Map([...tarballs].map(([name, file]) => [name, packedManifest(file)]));
for (const [name, m] of manifests) {
  const ranges = JSON.stringify({ ...m.dependencies, ...m.peerDependencies });
  if (/workspace:|catalog:/.test(ranges))
    fail(`${name}'s packed package.json keeps a workspace: or catalog: range`);
}
// The lowest zod every package accepts: installing it proves the stated peer range.
const zodRanges = [...manifests.values()].map((m) => m.peerDependencies?.zod).filter(Boolean);
const zodFloor = zodRanges
  .map((r) => r.match(/\d+\.\d+\.\d+/)?.[0])
  .filter(Boolean)
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
  .pop();
const extras = [`@types/node@^20`, ...(zodFloor ? [`zod@${zodFloor}`] : [])];
installProject(project, [...tarballs.values(), ...extras]);
cpSync(SAMPLE_SOURCE, join(project, 'sample'), { recursive: true });
ok(
  `${tarballs.size} tarballs installed with npm, with ${extras.join(', ')} (peer ranges: zod ${[...new Set(zodRanges)].join(', ')})`,
);

// ---------------------------------------------------------------------------
// 1 and 2. Every entry, both ways; main entries load nothing of their subpaths.

console.log(`\n== every entry with import() and require() (${elapsed()})`);
const entries = [];
for (const [name, m] of manifests) {
  for (const [subpath, target] of Object.entries(m.exports ?? {})) {
    if (typeof target === 'object')
      entries.push({ pkg: name, specifier: `${name}${subpath.slice(1)}`, main: subpath === '.' });
  }
}
for (const { pkg, specifier, main } of entries) {
  const esm = loadEntry(specifier, 'esm', project);
  const cjs = loadEntry(specifier, 'cjs', project);
  for (const [format, r] of [
    ['esm', esm],
    ['cjs', cjs],
  ]) {
    if (r.status !== 0 || !r.names?.length) {
      fail(`${format} ${specifier} did not load: ${r.stderr.trim().split('\n').slice(0, 6).join(' | ')}`);
    } else if (main) {
      const leaks = leaksOf(pkg, r.loaded);
      if (leaks.length) {
        fail(
          `${format} ${specifier} loads ${leaks.map((d) => `${d} (${SUBPATH_ONLY.get(d) ?? 'a built-in'})`).join(', ')}`,
        );
      }
    }
  }
  if (esm.names && cjs.names && JSON.stringify(esm.names) !== JSON.stringify(cjs.names)) {
    fail(`${specifier}: import() and require() give different names`);
  } else if (esm.names?.length) {
    ok(
      `${specifier}: ${esm.names.length} names both ways; loads ${foreign(esm.loaded).join(', ') || 'no third-party package'}`,
    );
  }
}

console.log(`\n== the detector sees each subpath-only dependency where it belongs (${elapsed()})`);
for (const [dep, code] of POSITIVE_CONTROLS) {
  const r = runRecorded(['--input-type=module', '-e', code], {
    cwd: project,
    env: { SAMPLE: join(project, 'sample') },
  });
  if (r.status !== 0)
    fail(`loading ${dep} through ${SUBPATH_ONLY.get(dep)} failed: ${r.stderr.trim().slice(0, 500)}`);
  else if (!r.loaded.has(dep)) fail(`${dep} was not seen when ${SUBPATH_ONLY.get(dep)} loaded it`);
  else ok(`${dep}, through ${SUBPATH_ONLY.get(dep)}`);
}

console.log(`\n== every package the built code imports is declared (${elapsed()})`);
// A flat node_modules would hide a missing declaration; read the built files instead.
for (const [name, m] of manifests) {
  const declared = new Set(
    Object.keys({ ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies }),
  );
  const dist = join(project, 'node_modules', name, 'dist');
  const files = readdirSync(dist, { recursive: true }).filter((f) => /\.(c?js)$/.test(String(f)));
  const missing = new Set();
  for (const file of files) {
    for (const dep of undeclaredImports(readFileSync(join(dist, String(file)), 'utf8'), declared, name)) {
      missing.add(dep);
    }
  }
  if (missing.size) fail(`${name} imports ${[...missing].join(', ')} without declaring it`);
  else ok(`${name}: every import of its ${files.length} built files is a declared dependency`);
}

// ---------------------------------------------------------------------------
// 3. TypeScript, as the consumers' compilers resolve the packages.

console.log(`\n== TypeScript (${elapsed()})`);
const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
const tsVersion = run(process.execPath, [tsc, '--version']).stdout.trim();
const imports = entries.map((e, i) => `import * as e${i} from '${e.specifier}';`).join('\n');
// The user's zod schema through core's helper: the peer dependency makes it one zod.
const body = `
import { z } from 'zod';
import { validateWithSchema } from '@stackspec/core';
${imports}
const r = validateWithSchema(z.object({ name: z.string() }), { name: 'x' });
export const name: string | undefined = r.ok ? r.value.name : undefined;
export const all: unknown[] = [${entries.map((_, i) => `e${i}`).join(', ')}];
`;
writeFileSync(join(project, 'esm.mts'), body);
writeFileSync(join(project, 'cjs.cts'), body);
writeFileSync(join(project, 'bundler.ts'), body);
writeFileSync(join(project, 'node10.ts'), body);
const base = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
const configs = {
  node16: {
    compilerOptions: { ...base, module: 'node16', moduleResolution: 'node16' },
    files: ['esm.mts', 'cjs.cts'],
  },
  bundler: {
    compilerOptions: { ...base, module: 'preserve', moduleResolution: 'bundler' },
    files: ['bundler.ts'],
  },
  node10: {
    compilerOptions: { ...base, module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
    files: ['node10.ts'],
  },
};
for (const [label, config] of Object.entries(configs)) {
  writeFileSync(join(project, `tsconfig.${label}.json`), JSON.stringify(config, null, 2));
  const r = spawnSync(process.execPath, [tsc, '-p', `tsconfig.${label}.json`], {
    cwd: project,
    encoding: 'utf8',
    timeout: 300_000,
  });
  // Errors in our declarations or in the file itself fail; those inside another
  // package's declarations (PGlite's need @types/emscripten) are only shown.
  const errors = r.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
  const ours = errors.filter(
    (line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@stackspec/'),
  );
  const theirs = [
    ...new Set(errors.filter((line) => !ours.includes(line)).map((line) => line.split('(')[0])),
  ];
  const note = theirs.length ? `; errors inside ${theirs.join(', ')} not ours, ignored` : '';
  if (r.status !== 0 && (ours.length || !errors.length)) {
    fail(`${label}: tsc failed\n${(ours.length ? ours : [r.stdout, r.stderr]).slice(0, 20).join('\n')}`);
  } else ok(`${label}: ${entries.length} entries typecheck (${tsVersion}, skipLibCheck off${note})`);
}

// ---------------------------------------------------------------------------
// 4. Every bin: --version, --help, one real command.

console.log(`\n== every bin (${elapsed()})`);
for (const [name, m] of manifests) {
  const bins = typeof m.bin === 'string' ? { [name.split('/').pop()]: m.bin } : (m.bin ?? {});
  for (const bin of Object.keys(bins)) {
    const shim = join(project, 'node_modules', '.bin', bin);
    // The installed shim, run as a user's shell runs it (shebang and mode included).
    const exec = (args, opts = {}) => runRecorded(args, { cwd: project, ...opts, command: shim });
    const version = exec(['--version']);
    if (version.status !== 0 || version.stdout.trim() !== m.version) {
      fail(
        `${bin} --version: exit ${version.status}, printed ${JSON.stringify(version.stdout.trim() || version.stderr.trim())}, expected ${m.version}`,
      );
    } else ok(`${bin} --version: ${m.version}`);
    const help = exec(['--help']);
    const helpLoaded = HELP_MUST_NOT_LOAD.filter((d) => help.loaded.has(d));
    if (help.status !== 0 || !/Usage:/.test(help.stdout)) fail(`${bin} --help: exit ${help.status}`);
    else if (helpLoaded.length) fail(`${bin} --help loaded ${helpLoaded.join(', ')}`);
    else ok(`${bin} --help (without ${HELP_MUST_NOT_LOAD.join(', ')})`);
    const real = REAL_COMMANDS[bin];
    if (!real) {
      fail(`${bin} has no real command in scripts/check-tarballs.mjs; add one`);
      continue;
    }
    const args = real.args;
    const r = exec(args, { timeout: 180_000 });
    let good = false;
    try {
      good = r.status === 0 && real.ok(r.stdout);
    } catch {
      good = false;
    }
    const shown = `${bin} ${args.map((a) => (/[\s&[]/.test(a) ? `'${a}'` : a)).join(' ')}`;
    if (!good) fail(`${shown}: exit ${r.status}\n${r.stdout.slice(0, 1500)}${r.stderr.slice(0, 1500)}`);
    else {
      const loadedBad = (real.mustNotLoad ?? []).filter((d) => r.loaded.has(d));
      if (loadedBad.length) fail(`${shown} loaded ${loadedBad.join(', ')}`);
      else ok(`${shown}${real.mustNotLoad ? ` (without ${real.mustNotLoad.join(', ')})` : ''}`);
    }
  }
}

if (!KEEP && !failures.length) rmSync(work, { recursive: true, force: true });
else console.log(`\nThe project is kept in ${work}.`);
finish();

function finish() {
  const passed = SELF_CHECK_ONLY ? 'the detector can fail: self-check passed' : 'tarball check passed';
  console.log(`\n${failures.length ? `${failures.length} failure(s)` : passed} (${elapsed()})`);
  process.exit(failures.length ? 1 : 0);
}
