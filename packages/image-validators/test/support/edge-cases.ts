// Hand-made specs and machines for the Sahara comparison: the corners of the
// behaviour that the real corpus does not reach.
import type { Scenario, SpecInput, World } from './world.js';

const specs: SpecInput[] = [];
const scenarios: Scenario[] = [];

function spec(id: string, text: string, scripts?: Record<string, string>) {
  specs.push({ id, text, ...(scripts ? { scripts } : {}) });
}

function run(
  specId: string,
  variants: {
    distros?: string[];
    modes?: ('check' | 'fix')[];
    worlds?: Record<string, World>;
    args?: Record<string, Record<string, string | number | boolean>>;
  } = {},
) {
  const worlds = variants.worlds ?? { empty: {} };
  const args = variants.args ?? { none: {} };
  for (const distro of variants.distros ?? ['ubuntu', 'centos']) {
    for (const mode of variants.modes ?? ['check', 'fix']) {
      for (const [w, world] of Object.entries(worlds)) {
        for (const [a, values] of Object.entries(args)) {
          scenarios.push({
            id: `edge:${specId}:${distro}:${mode}:${w}:${a}`,
            spec: specId,
            distro,
            testOnly: mode === 'check',
            arguments: values,
            world,
          });
        }
      }
    }
  }
}

// Packages: single, list, pinned; every outcome of check/install/re-check.
spec('packages', 'validators:\n  - package: wget\n  - package: [nfs-utils, {lzo: {version: "2.0"}}]\n');
run('packages', {
  distros: ['ubuntu', 'centos', 'gentoo'],
  worlds: {
    empty: {},
    full: { installed: ['wget', 'nfs-utils', 'lzo-2.0'] },
    partial: { installed: ['wget', 'nfs-utils'] },
    uninstallable: { installed: ['wget'], installable: ['nfs-utils'] },
    'recheck-fails': {
      respond: [{ pattern: '^(rpm -q|dpkg -s) nfs-utils', exitCode: 1, stderr: 'still missing\n' }],
    },
  },
});

// any: the counts of reference §4.5 and §12, and first-success.
spec('any', 'validators:\n  - package: ok\n  - any:\n      - package: x\n      - package: y\n');
run('any', {
  worlds: {
    'always-missing': {
      installed: ['ok'],
      respond: [{ pattern: '^(rpm -q|dpkg -s) (x|y)$', exitCode: 1, stdout: 'missing\n' }],
    },
    'installs-fail': { installed: ['ok'], installable: [] },
    'second-present': { installed: ['ok', 'y'] },
    'second-installable': { installed: ['ok'], installable: ['y'] },
  },
});
spec('any-empty', 'validators:\n  - any: []\n');
run('any-empty', { distros: ['ubuntu'] });
spec(
  'any-nested',
  'validators:\n  - any:\n      - all: [{package: a}, {package: b}]\n      - all: [{package: c}]\n',
);
run('any-nested', { worlds: { some: { installed: ['a'], installable: ['c'] }, none: { installable: [] } } });

// os_case: distro, family, shadowing, no match; and plain debian.
spec(
  'os-case',
  'validators:\n  - os_case:\n      - redhat: [{package: fam}]\n      - centos: [{package: own}]\n      - ubuntu: [{package: deb}]\n',
);
run('os-case', {
  distros: ['centos', 'ubuntu', 'fedora', 'rhel', 'gentoo', 'centos7'],
  worlds: { full: { installed: ['fam', 'own', 'deb'] }, empty: {} },
});
spec('debian-package', 'validators:\n  - os_case:\n      - debian: [{package: a}]\n');
run('debian-package', { distros: ['debian'], worlds: { full: { installed: ['a'] } } });

// Arguments: defaults, required, choices, undeclared keys, types.
spec(
  'arguments',
  [
    'arguments:',
    '  java_distro: {default: openjdk, choices: [openjdk, oracle-java]}',
    '  token: {required: true, description: needed}',
    '  scala_version: {default: 1, hidden: True, required: False}',
    '  ratio: {default: 2.0}',
    '  flag: {default: yes}',
    'validators:',
    '  - script:',
    '      common/show:',
    '        env_vars: [java_distro, token, scala_version, ratio, flag, undeclared, stray]',
    '  - argument_case:',
    '      argument_name: scala_version',
    '      cases:',
    '        1: [{package: int-one}]',
    '  - argument_case:',
    '      argument_name: java_distro',
    '      cases:',
    '        openjdk: [{package: openjdk}]',
    '        oracle-java: [{script: common/oracle}]',
    '',
  ].join('\n'),
);
run('arguments', {
  worlds: { full: { installed: ['int-one', 'openjdk'] } },
  args: {
    none: {},
    token: { token: 't' },
    oracle: { token: 't', java_distro: 'oracle-java' },
    badchoice: { token: 't', java_distro: 'ibm' },
    stray: { token: 't', stray: 'dropped' },
    'scala-text': { token: 't', scala_version: '1' },
    'scala-true': { token: 't', scala_version: true },
  },
});
spec(
  'argument-missing',
  'validators:\n  - argument_case: {argument_name: nope, cases: {a: [{package: a}]}}\n',
);
run('argument-missing', { distros: ['ubuntu'] });
spec(
  'argument-set',
  'validators:\n  - argument_set: {argument_name: v, value: b}\n  - argument_case: {argument_name: v, cases: {a: [{package: pa}], b: [{package: pb}]}}\n  - script: {common/echo: {env_vars: [v]}}\n',
);
run('argument-set', { worlds: { full: { installed: ['pa', 'pb'] }, empty: {} } });
spec(
  'case-types',
  "arguments:\n  n: {default: '1'}\nvalidators:\n  - argument_case: {argument_name: n, cases: {1: [{package: int}], '1': [{package: str}]}}\n",
);

// Scripts: output capture, env_vars, failures in each mode, test_only.
spec(
  'scripts',
  [
    'arguments:',
    '  java_distro: {default: openjdk}',
    'validators:',
    '  - script: {java/find_jre_home: {output: JRE_HOME}}',
    '  - script: {java/setup_java_home: {env_vars: [JRE_HOME, java_distro, unknown]}}',
    '  - script: plain',
    '  - script: {java/find_distro: {output: distro}}',
    '  - script: {last: {env_vars: [distro]}}',
    '',
  ].join('\n'),
);
run('scripts', {
  worlds: {
    pass: {
      scripts: { 'java/find_jre_home': { check: { stdout: '/usr/lib/jvm' }, fix: { stdout: '/opt/jdk' } } },
    },
    'check-fails': { scripts: { plain: { check: { exitCode: 1, stderr: 'not configured\n' } } } },
    'fix-fails': { scripts: { plain: { fix: { exitCode: 2, stdout: 'tried\n', stderr: 'broke\n' } } } },
  },
});
spec('script-then-package', 'validators:\n  - script: add_repo\n  - package: from-repo\n');
run('script-then-package', {
  modes: ['fix'],
  worlds: { 'script-installs': { installable: [], scripts: { add_repo: { installs: ['from-repo'] } } } },
});

// The distribution is read from the variable map each time: outputs and argument_set can change it.
spec(
  'distro-rewritten',
  [
    'validators:',
    '  - script: {detect: {output: distro}}',
    '  - os_case: [{ubuntu: [{package: u}]}, {redhat: [{package: r}]}, {"centos\\n": [{package: nl}]}]',
    '  - package: p',
    '',
  ].join('\n'),
);
run('distro-rewritten', {
  worlds: {
    'to-ubuntu': {
      installed: ['u', 'r', 'p', 'nl'],
      scripts: { detect: { check: { stdout: 'ubuntu' }, fix: { stdout: 'ubuntu' } } },
    },
    'to-centos-newline': {
      installed: ['u', 'r', 'p', 'nl'],
      scripts: { detect: { check: { stdout: 'centos\n' }, fix: { stdout: 'centos\n' } } },
    },
  },
});
spec(
  'distro-set',
  'validators:\n  - argument_set: {argument_name: distro, value: fedora}\n  - os_case: [{redhat: [{package: r}]}, {ubuntu: [{package: u}]}]\n  - script: {show: {env_vars: [distro]}}\n',
);
run('distro-set', { worlds: { full: { installed: ['r', 'u'] } } });

// copy_script (py3 writes a bytes literal) and inline scripts (py3 crashes).
spec('copy-script', 'validators:\n  - copy_script: common/resources/package_utils.sh\n', {
  'common/resources/package_utils.sh': 'echo utils\n',
});
run('copy-script', { distros: ['ubuntu'] });
spec('inline', 'validators:\n  - script: {apt_update: {inline: apt-get update}}\n');
run('inline', { distros: ['ubuntu'] });

// Specs that must fail to load.
spec('bad-unknown-type', 'validators:\n  - packages: a\n');
spec('bad-not-single-key', 'validators:\n  - {package: a, script: b}\n');
spec('bad-version-int', 'validators:\n  - package: {lzo: {version: 8}}\n');
spec('bad-argument-case-key', 'validators:\n  - argument_case: {argument_name: a, case: {x: []}}\n');
spec('bad-no-validators', 'arguments: {}\n');
spec('bad-script-missing', 'validators:\n  - script: nowhere\n', {});
spec('bad-reserved', 'arguments:\n  distro: {default: x}\nvalidators: []\n');
spec('bad-no-default', 'arguments:\n  a: {description: x}\nvalidators: []\n');
spec('bad-default-choice', 'arguments:\n  a: {default: x, choices: [y]}\nvalidators: []\n');
spec('bad-copy-short', 'validators:\n  - copy_script: a/b\n', { 'a/b': 'x\n' });
spec('bad-empty-packages', 'validators:\n  - package: []\n');
spec('bad-option-package', 'validators:\n  - package: -oDebug=1\n');
spec('bad-env-name', 'validators:\n  - script: {s: {env_vars: ["a-b"]}}\n', { s: 'x\n' });
spec('bad-choices-text', 'arguments:\n  a: {default: x, choices: xyz}\nvalidators: []\n');
spec('bad-argument-set-extra', 'validators:\n  - argument_set: {argument_name: a, value: b, other: c}\n');
spec('bad-os-case-map', 'validators:\n  - os_case: {ubuntu: []}\n');
spec('bad-script-escape', 'validators:\n  - script: ../../outside\n', {});

spec('bad-arguments-null', 'arguments:\nvalidators: []\n');
spec('bad-validators-null', 'validators:\n');
spec('bad-script-empty-path', 'validators:\n  - script: ""\n');
spec('bad-case-not-list', 'validators:\n  - argument_case: {argument_name: a, cases: {x: {package: p}}}\n');
spec('bad-argument-set-missing', 'validators:\n  - argument_set: {argument_name: a}\n');
spec('bad-yaml', 'validators:\n  - package: [a\n');
spec('ok-empty-os-case', 'validators:\n  - os_case: []\n  - all: []\n');
run('ok-empty-os-case', { distros: ['ubuntu'] });
spec('ok-required-with-default', 'arguments:\n  a: {required: true, default: x}\nvalidators: []\n');
run('ok-required-with-default', {
  distros: ['ubuntu'],
  modes: ['check'],
  args: { none: {}, given: { a: 'y' } },
});

/** Hand-made specs and scenarios for the Sahara comparison. */
export const EDGE_CASES = { specs, scenarios };
