// The real TripleO tree: every file classified and parsed with Heat's rules,
// every environment's registry paths resolved against the tree, and the
// tree's alternative implementations annotated (in a copy) to prove that
// resolution, find and both summaries give the expected answers.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { validateDocument } from '@stackspec/core';
import { runCli } from '@stackspec/core/cli';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../../test-support/cli.js';
import { runHeatCli } from '../src/cli/program.js';
import {
  findTemplates,
  type HeatEnvironment,
  parseEnvironment,
  resolveEnvironment,
  scanDocument,
  stripCapabilities,
  summarizeCapabilities,
  validateEnvironment,
  validateTemplate,
} from '../src/index.js';
import { scanForSearch } from '../src/scan.js';
import { CORPUS_ROOT, corpusAvailable } from './corpus-path.js';

const ROOT = CORPUS_ROOT;
const INSTALLED = '/usr/share/openstack-tripleo-heat-templates/';
const present = corpusAvailable();

async function runHeat(cwd: string, argv: string[]) {
  const io = memoryIO({ cwd });
  const code = await runCli(() => runHeatCli(argv, io), io);
  return { code, stdout: io.out(), stderr: io.err() };
}

describe.runIf(present)('the TripleO tree', () => {
  const files = present ? fg.sync('**/*.yaml', { cwd: ROOT }).sort() : [];
  const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

  it('classifies and parses every non-Jinja YAML file with the counts the reference gives', () => {
    const kinds: Record<string, string[]> = {
      template: [],
      environment: [],
      rejected: [],
      jinja: [],
      other: [],
    };
    for (const f of files) {
      const text = texts.get(f) as string;
      if (f.endsWith('.j2.yaml')) {
        kinds.jinja?.push(f);
        continue;
      }
      const scan = scanDocument(text, { filename: f });
      expect(scan.kind, f).not.toBe('invalid');
      if (scan.kind === 'template') {
        const t = validateTemplate(text, { filename: f, allowCapabilities: false });
        expect(
          t.diagnostics.filter((d) => d.severity === 'error'),
          f,
        ).toEqual([]);
        expect(t.template?.version).toBe('wallaby');
        kinds.template?.push(f);
      } else if (scan.kind === 'environment') {
        const strict = validateEnvironment(text, { filename: f, allowExtensions: false });
        if (strict.ok) kinds.environment?.push(f);
        else {
          expect(strict.diagnostics[0]?.code, f).toBe('heat/environment/empty-section');
          expect(validateEnvironment(text, { filename: f, acceptNullSections: true }).ok).toBe(true);
          kinds.rejected?.push(f);
        }
      } else {
        expect(validateDocument(text, { duplicateKeys: 'warn' }).ok, f).toBe(true);
        kinds.other?.push(f);
      }
      // The fast scan agrees with a full parse on every file of the tree, and so
      // does the search scan on all but the keys it may stop before.
      const full = scanDocument(text, { filename: f, mode: 'full' });
      expect({ ...scan, method: 'x' }, f).toEqual({ ...full, method: 'x' });
      const search = scanForSearch(text, { filename: f });
      expect({ ...search, method: 'x', keys: [] }, f).toEqual({ ...full, method: 'x', keys: [] });
    }
    const counts = Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v.length]));
    console.log('tripleo tree:', counts);
    expect(counts).toEqual({ template: 277, environment: 224, rejected: 3, jinja: 42, other: 107 });
    expect(kinds.rejected).toEqual([
      'environments/barbican-backend-dogtag.yaml',
      'environments/barbican-backend-kmip.yaml',
      'environments/firewall.yaml',
    ]);
  });

  it('validates the whole tree with -r: only the files Heat rejects fail, the rest is skipped and counted', async () => {
    const r = await runHeat(ROOT, ['validate', '-r', '.', '-f', 'json']);
    const rows = JSON.parse(r.stdout) as { file: string; severity: string; code: string }[];
    expect(rows.filter((d) => d.severity === 'error')).toEqual(
      [
        'environments/barbican-backend-dogtag.yaml',
        'environments/barbican-backend-kmip.yaml',
        'environments/firewall.yaml',
      ].map((file) => expect.objectContaining({ file, code: 'heat/environment/empty-section' })),
    );
    const skipped = rows.filter((d) => d.code === 'heat/validate/skipped');
    expect(skipped.filter((d) => d.file.endsWith('.j2.yaml'))).toHaveLength(42);
    expect(skipped.filter((d) => !d.file.endsWith('.j2.yaml'))).toHaveLength(107);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('✖ 3 problems (3 errors, 0 warnings) in 504 files\n');
  });

  it('resolves every registry path against the tree and lists the ones that point nowhere', () => {
    let filesWithEntries = 0;
    let entries = 0;
    let templates = 0;
    let disabled = 0;
    let aliases = 0;
    let absolute = 0;
    const types = new Set<string>();
    const missing = new Map<string, Set<string>>();
    let missingRefs = 0;
    const nested: string[] = [];
    for (const f of files) {
      if (f.endsWith('.j2.yaml')) continue;
      const text = texts.get(f) as string;
      if (scanDocument(text).kind !== 'environment') continue;
      const env = parseEnvironment(text, {
        filename: join(ROOT, f),
        pathMap: { [INSTALLED]: `${ROOT}/` },
        acceptNullSections: true,
      });
      const top = env.registry.filter((e) => e.path.length === 1);
      if (top.length) filesWithEntries += 1;
      // Per-resource overrides (under `resources:`) point at files too.
      for (const e of env.registry.filter((x) => x.path.length > 1)) {
        nested.push(`${e.kind}`);
        if (e.kind === 'template') expect(existsSync(e.resolved as string), `${f}: ${e.target}`).toBe(true);
      }
      for (const e of top) {
        entries += 1;
        types.add(e.type);
        if (e.kind === 'template') {
          templates += 1;
          if (String(e.target).startsWith('/')) absolute += 1;
          const rel = posix.relative(ROOT, e.resolved as string);
          expect(rel.startsWith('..'), `${f}: ${e.target}`).toBe(false);
          if (!existsSync(e.resolved as string)) {
            missingRefs += 1;
            const set = missing.get(rel) ?? new Set<string>();
            set.add(f);
            missing.set(rel, set);
          }
        } else if (e.target === 'OS::Heat::None') disabled += 1;
        else aliases += 1;
      }
    }
    const pairs = [...missing.values()].reduce((n, s) => n + s.size, 0);
    console.log('registry:', {
      filesWithEntries,
      entries,
      types: types.size,
      templates,
      disabled,
      aliases,
      absolute,
    });
    console.log(
      `paths that point nowhere: ${missing.size} targets, ${pairs} (file, target) pairs, ${missingRefs} references`,
    );
    for (const [target, from] of [...missing.entries()].sort())
      console.log(`  ${target}  <- ${[...from].sort().join(', ')}`);
    expect({ entries, types: types.size, templates, disabled, aliases, absolute }).toEqual({
      entries: 1087,
      types: 240,
      templates: 666,
      disabled: 413,
      aliases: 8,
      absolute: 66,
    });
    // The tree has one per-resource entry, a hook, and no per-resource template path.
    expect(nested).toEqual(['hooks']);
    expect(missing.size).toBe(40);
    expect(pairs).toBe(115);
    // Targets rendered from Jinja sources of the tree, and ones removed upstream.
    expect(missing.has('extraconfig/all_nodes/swap.yaml')).toBe(true);
    expect(missing.has('deployment/cinder/cinder-backend-dellsc-puppet.yaml')).toBe(true);
  });

  describe('annotated alternatives (in a copy of the tree)', () => {
    let copy: string;
    const ANNOTATIONS: Record<string, Record<string, string | string[]>> = {
      'deployment/haproxy/haproxy-pacemaker-puppet.yaml': {
        deployment: 'pacemaker',
        tool: 'puppet',
        resource_type: 'OS::TripleO::Services::HAproxy',
      },
      'deployment/haproxy/haproxy-container-puppet.yaml': {
        deployment: 'container',
        tool: 'puppet',
        resource_type: 'OS::TripleO::Services::HAproxy',
      },
      'deployment/cinder/cinder-volume-pacemaker-puppet.yaml': {
        deployment: 'pacemaker',
        resource_type: 'OS::TripleO::Services::CinderVolume',
      },
      'deployment/cinder/cinder-volume-container-puppet.yaml': {
        deployment: 'container',
        resource_type: 'OS::TripleO::Services::CinderVolume',
      },
      'deployment/database/redis-pacemaker-puppet.yaml': {
        deployment: 'pacemaker',
        resource_type: 'OS::TripleO::Services::Redis',
      },
      'deployment/database/redis-container-puppet.yaml': {
        deployment: 'container',
        resource_type: 'OS::TripleO::Services::Redis',
      },
      'deployment/rabbitmq/rabbitmq-messaging-rpc-pacemaker-puppet.yaml': {
        deployment: 'pacemaker',
        messaging: 'rabbitmq',
        resource_type: 'OS::TripleO::Services::OsloMessagingRpc',
      },
      'deployment/rabbitmq/rabbitmq-messaging-rpc-container-puppet.yaml': {
        deployment: 'container',
        messaging: 'rabbitmq',
        resource_type: 'OS::TripleO::Services::OsloMessagingRpc',
      },
      'deployment/messaging/rpc-qdrouterd-container-puppet.yaml': {
        deployment: 'container',
        messaging: 'qdrouterd',
        resource_type: 'OS::TripleO::Services::OsloMessagingRpc',
      },
      'deployment/metrics/qdr-container-puppet.yaml': {
        tool: 'puppet',
        resource_type: 'OS::TripleO::Services::MetricsQdr',
      },
      'deployment/metrics/qdr-container-ansible.yaml': {
        tool: 'ansible',
        resource_type: 'OS::TripleO::Services::MetricsQdr',
      },
      'deployment/neutron/neutron-plugin-ml2.yaml': {
        deployment: 'container',
        sdn: 'ovs',
        resource_type: [
          'OS::TripleO::Services::NeutronMl2PluginBase',
          'OS::TripleO::Services::NeutronCorePlugin',
        ],
      },
      'deployment/neutron/neutron-plugin-ml2-ovn.yaml': {
        deployment: 'container',
        sdn: 'ovn',
        resource_type: 'OS::TripleO::Services::NeutronMl2PluginBase',
      },
    };

    function annotate(text: string, caps: Record<string, string | string[]>): string {
      const block = Object.entries(caps)
        .map(([k, v]) => `  ${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : v}`)
        .join('\n');
      return text.replace(/^heat_template_version: (\S+)\n/m, (line) => `${line}\ncapabilities:\n${block}\n`);
    }

    beforeAll(() => {
      copy = mkdtempSync(join(tmpdir(), 'tht-annotated-'));
      cpSync(ROOT, copy, { recursive: true });
      for (const [file, caps] of Object.entries(ANNOTATIONS)) {
        const path = join(copy, file);
        const annotated = annotate(readFileSync(path, 'utf8'), caps);
        expect(annotated).toContain('capabilities:');
        writeFileSync(path, annotated);
      }
      writeFileSync(
        join(copy, 'environments/choose-ha.yaml'),
        [
          '# Pick implementations by capability instead of naming them.',
          'requires:',
          '  deployment: pacemaker',
          'resource_registry:',
          '  OS::TripleO::Services::HAproxy:',
          '    - ../deployment/haproxy/haproxy-pacemaker-puppet.yaml',
          '    - ../deployment/haproxy/haproxy-container-puppet.yaml',
          '  OS::TripleO::Services::CinderVolume: [../deployment/cinder/cinder-volume-pacemaker-puppet.yaml, ../deployment/cinder/cinder-volume-container-puppet.yaml]',
          `  OS::TripleO::Services::Redis: [${INSTALLED}deployment/database/redis-pacemaker-puppet.yaml, ../deployment/database/redis-container-puppet.yaml]`,
          '  OS::TripleO::Services::OsloMessagingRpc:',
          '    - ../deployment/rabbitmq/rabbitmq-messaging-rpc-pacemaker-puppet.yaml',
          '    - ../deployment/rabbitmq/rabbitmq-messaging-rpc-container-puppet.yaml',
          '    - ../deployment/messaging/rpc-qdrouterd-container-puppet.yaml',
          '  OS::TripleO::Services::Keystone: ../deployment/keystone/keystone-container-puppet.yaml',
          'parameter_defaults:',
          '  ContainerCli: podman',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(copy, 'environments/non-ha.yaml'),
        'requires:\n  deployment: container\n  messaging: qdrouterd\n',
      );
    });

    afterAll(() => rmSync(copy, { recursive: true, force: true }));

    const load = (name: string) =>
      parseEnvironment(readFileSync(join(copy, name), 'utf8'), {
        filename: join(copy, name),
        pathMap: { [INSTALLED]: `${copy}/` },
      });
    const readTemplate = (p: string) => readFile(p, 'utf8');

    it('resolves each list to the pacemaker implementation', async () => {
      const r = await resolveEnvironment([load('environments/choose-ha.yaml')], { readTemplate, root: copy });
      expect(r.diagnostics).toEqual([]);
      expect(r.choices).toEqual({
        'OS::TripleO::Services::CinderVolume': 'deployment/cinder/cinder-volume-pacemaker-puppet.yaml',
        'OS::TripleO::Services::HAproxy': 'deployment/haproxy/haproxy-pacemaker-puppet.yaml',
        'OS::TripleO::Services::OsloMessagingRpc':
          'deployment/rabbitmq/rabbitmq-messaging-rpc-pacemaker-puppet.yaml',
        'OS::TripleO::Services::Redis': 'deployment/database/redis-pacemaker-puppet.yaml',
      });
      const registry = r.environment.resource_registry as Record<string, string>;
      expect(registry['OS::TripleO::Services::Keystone']).toBe(
        'deployment/keystone/keystone-container-puppet.yaml',
      );
      expect(r.environment.parameter_defaults).toEqual({ ContainerCli: 'podman' });
      // The output is a plain environment Heat accepts, and every path exists in the tree.
      expect(validateEnvironment(JSON.stringify(r.environment), { allowExtensions: false }).ok).toBe(true);
      for (const path of Object.values(registry)) expect(existsSync(join(copy, path)), path).toBe(true);
    });

    it('lets a later file change the requirements, key by key', async () => {
      const envs: HeatEnvironment[] = [load('environments/choose-ha.yaml'), load('environments/non-ha.yaml')];
      const r = await resolveEnvironment(envs, { readTemplate, root: copy });
      expect(r.choices['OS::TripleO::Services::OsloMessagingRpc']).toBe(
        'deployment/messaging/rpc-qdrouterd-container-puppet.yaml',
      );
      // The other lists now have no candidate offering messaging: qdrouterd.
      expect(r.ok).toBe(false);
      expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
        ['heat/resolve/no-match', '/resource_registry/OS::TripleO::Services::CinderVolume'],
        ['heat/resolve/no-match', '/resource_registry/OS::TripleO::Services::HAproxy'],
        ['heat/resolve/no-match', '/resource_registry/OS::TripleO::Services::Redis'],
      ]);
      expect(r.diagnostics[1]?.message).toContain(
        "deployment/haproxy/haproxy-container-puppet.yaml has no 'messaging' capability (requires qdrouterd)",
      );
      expect(r.diagnostics[1]?.line).toBe(5);
    });

    it('reports two container implementations of one service as several matches', async () => {
      const envs = [load('environments/choose-ha.yaml')];
      const text = readFileSync(join(copy, 'environments/choose-ha.yaml'), 'utf8').replace(
        'deployment: pacemaker',
        'deployment: container',
      );
      envs[0] = parseEnvironment(text, {
        filename: join(copy, 'environments/choose-ha.yaml'),
        pathMap: { [INSTALLED]: `${copy}/` },
      });
      const r = await resolveEnvironment(envs, { readTemplate, root: copy });
      expect(r.diagnostics.map((d) => d.code)).toEqual(['heat/resolve/several-match']);
      expect(r.diagnostics[0]?.hint).toContain("requirement on 'messaging'");
      expect(Object.keys(r.choices)).toHaveLength(3);
    });

    it('finds the implementations of a type and summarises the labels', async () => {
      const found = await findTemplates(['deployment'], {
        cwd: copy,
        recursive: true,
        capabilities: { resource_type: 'OS::TripleO::Services::OsloMessagingRpc' },
      });
      expect(found.templates.map((t) => t.file)).toEqual([
        'deployment/messaging/rpc-qdrouterd-container-puppet.yaml',
        'deployment/rabbitmq/rabbitmq-messaging-rpc-container-puppet.yaml',
        'deployment/rabbitmq/rabbitmq-messaging-rpc-pacemaker-puppet.yaml',
      ]);
      const all = await findTemplates(['.'], { cwd: copy, recursive: true });
      const annotated = all.templates.filter((t) => t.capabilities);
      expect(annotated).toHaveLength(Object.keys(ANNOTATIONS).length);
      const summary = summarizeCapabilities(all.templates);
      expect(summary.labels).toEqual({
        deployment: ['container', 'pacemaker'],
        messaging: ['qdrouterd', 'rabbitmq'],
        sdn: ['ovn', 'ovs'],
        tool: ['puppet', 'ansible'],
      });
      expect(summary.resourceTypes['OS::TripleO::Services::HAproxy']).toEqual([
        'deployment/haproxy/haproxy-container-puppet.yaml',
        'deployment/haproxy/haproxy-pacemaker-puppet.yaml',
      ]);
      expect(summary.resourceTypes['OS::TripleO::Services::NeutronCorePlugin']).toEqual([
        'deployment/neutron/neutron-plugin-ml2.yaml',
      ]);
      expect(Object.keys(summary.resourceTypes)).toHaveLength(7);
    });

    it('answers capabilities-find and resolve from the command line', async () => {
      const run = (...argv: string[]) => runHeat(copy, argv);
      const find = await run(
        'capabilities-find',
        '-r',
        '--capability',
        'resource_type=OS::TripleO::Services::MetricsQdr',
        '--capability',
        'tool=ansible',
        '-f',
        'value',
        '-c',
        'path',
        'deployment',
      );
      expect(find).toMatchObject({ code: 0, stdout: 'deployment/metrics/qdr-container-ansible.yaml\n' });
      const resolved = await run(
        'resolve',
        '-e',
        'environments/choose-ha.yaml',
        '--path-map',
        `${INSTALLED}=.`,
        '-o',
        'out/resolved.yaml',
        '-f',
        'json',
      );
      expect(resolved.code, resolved.stderr).toBe(0);
      expect(JSON.parse(resolved.stdout)).toHaveLength(4);
      const check = await run('validate', '--heat', 'out/resolved.yaml');
      expect(check.code, check.stdout).toBe(0);
    });

    it('strips every annotated template back to what Heat accepts and the original data', () => {
      for (const file of Object.keys(ANNOTATIONS)) {
        const stripped = stripCapabilities(readFileSync(join(copy, file), 'utf8'), { filename: file });
        expect(stripped.method, file).toBe('text');
        const original = validateTemplate(readFileSync(join(ROOT, file), 'utf8'));
        const back = validateTemplate(stripped.text, { allowCapabilities: false });
        expect(back.ok, file).toBe(true);
        expect(back.template?.value).toEqual(original.template?.value);
      }
    });
  });
});
