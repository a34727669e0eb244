# Runs image validation scenarios through Sahara's own sahara.plugins.images
# (Debian's python3-sahara) with a fake remote that simulates a machine, and
# prints what happened as JSON. The TypeScript conformance test feeds the same
# scenarios to @stackspec/image-validators with the same machine model.
#
# stdin: {"packageRoot": dir, "specs": {specId: {"package": name, "text": yaml, "roots": [..]}},
#         "scenarios": [{"id", "spec", "distro", "testOnly", "arguments", "world"}]}
# stdout: {"loads": {specId: {"error": ...} | {}}, "results": {id: {"calls": [...], "error": ...}}}
import ast
import json
import re
import sys
import warnings

warnings.simplefilter('ignore')

import yaml  # noqa: E402
from sahara import exceptions as ex  # noqa: E402
from sahara.plugins import images  # noqa: E402

ERROR_ID = re.compile(r'\nError ID: [0-9a-f-]+')
SAHARA_WORD = re.compile(r'\S+')


def describe(exc):
    message = getattr(exc, 'message', None)
    if not isinstance(message, str):
        message = str(exc)
    return {'class': type(exc).__name__, 'message': ERROR_ID.sub('', message)}


class FakeRemote(object):
    def __init__(self, world, distro):
        self.world = world
        self.distro = distro
        self.calls = []
        self.files = {}
        self.installed = set(world.get('installed', []))
        installable = world.get('installable')
        self.installable = None if installable is None else set(installable)

    def get_os_distrib(self):
        self.calls.append(['distro'])
        return self.distro

    def write_file_to(self, path, data, run_as_root=False, **kwargs):
        if isinstance(data, bytes):
            data = data.decode('utf-8')
        call = ['write', path, data, bool(run_as_root)]
        if data.startswith(("b'", 'b"')):
            # py3 Sahara wrote str(bytes); keep what was meant too, so the rest can be compared.
            call.append(ast.literal_eval(data).decode('utf-8'))
        self.calls.append(call)
        self.files[path] = data

    def execute_command(self, cmd, run_as_root=False, raise_when_error=True, **kwargs):
        self.calls.append(['exec', cmd, bool(run_as_root)])
        code, out, err = self.answer(cmd)
        if code and raise_when_error:
            raise ex.RemoteCommandException(cmd, code, out, err)
        return code, out

    def answer(self, cmd):
        for rule in self.world.get('respond', []):
            if re.search(rule['pattern'], cmd):
                return rule.get('exitCode', 0), rule.get('stdout', ''), rule.get('stderr', '')
        m = re.match(r'^chmod \+x (\S+)$', cmd)
        if m:
            if m.group(1) in self.files:
                return 0, '', ''
            return 1, '', "chmod: cannot access '%s': No such file or directory\n" % m.group(1)
        if cmd in self.files:
            return self.script(self.files[cmd])
        for prefix, family in (('dpkg -s', 'debian'), ('rpm -q', 'redhat')):
            if cmd == prefix or cmd.startswith(prefix + ' '):
                return self.check(SAHARA_WORD.findall(cmd[len(prefix):]), family)
        for prefix in ('DEBIAN_FRONTEND=noninteractive apt-get -y install', 'yum install -y'):
            if cmd == prefix or cmd.startswith(prefix + ' '):
                return self.install(SAHARA_WORD.findall(cmd[len(prefix):]))
        return 0, '', ''

    def check(self, words, family):
        missing = [w for w in words if w not in self.installed]
        if words and not missing:
            return 0, '', ''
        if family == 'redhat':
            return (len(missing) or 1,
                    ''.join('package %s is not installed\n' % w for w in missing), '')
        if not words:
            return 1, '', 'dpkg: error: --status needs at least one package name argument\n'
        return 1, '', ''.join(
            "dpkg-query: package '%s' is not installed and no information is available\n" % w
            for w in missing)

    def install(self, words):
        bad = [w for w in words if self.installable is not None
               and w not in self.installable and w not in self.installed]
        if bad:
            return 100, '', ''.join('E: Unable to locate package %s\n' % w for w in bad)
        self.installed.update(words)
        return 0, 'Installed: %s\n' % ' '.join(words), ''

    def script(self, content):
        env = {}
        lines = content.split('\n')
        i = 0
        while i < len(lines):
            m = re.match(r'^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$', lines[i])
            if not m:
                break
            env[m.group(1)] = m.group(2)
            i += 1
        body = '\n'.join(lines[i:])
        mode = 'check' if env.get('test_only') == '1' else 'fix'
        marker = re.search(r'# stand-in: (\S+)', body)
        key = marker.group(1) if marker else body.strip()
        answer = self.world.get('scripts', {}).get(key, {})
        if mode == 'fix':
            self.installed.update(answer.get('installs', []))
        result = answer.get(mode, {})
        return result.get('exitCode', 0), result.get('stdout', ''), result.get('stderr', '')


def main():
    request = json.load(sys.stdin)
    sys.path.insert(0, request['packageRoot'])
    validator_map = images.SaharaImageValidator.get_validator_map()
    loaded = {}
    loads = {}
    for spec_id, spec in request['specs'].items():
        try:
            value = yaml.safe_load(spec['text'])
            loaded[spec_id] = images.SaharaImageValidator.from_spec(
                value, validator_map, spec['roots'], spec['package'])
            loads[spec_id] = {}
        except Exception as exc:  # every crash is data for the comparison
            loads[spec_id] = {'error': describe(exc)}
    results = {}
    for scenario in request['scenarios']:
        validator = loaded.get(scenario['spec'])
        if validator is None:
            continue
        remote = FakeRemote(scenario['world'], scenario['distro'])
        outcome = {}
        try:
            validator.validate(remote, test_only=scenario['testOnly'],
                               image_arguments=dict(scenario['arguments']))
        except Exception as exc:
            outcome['error'] = describe(exc)
        outcome['calls'] = remote.calls
        outcome['installed'] = sorted(remote.installed)
        results[scenario['id']] = outcome
    json.dump({'loads': loads, 'results': results}, sys.stdout)


main()
