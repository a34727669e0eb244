# Conformance oracle: Debian's Nova 26 extra spec validators.
# Reads JSON lines {"key": ..., "value": ...} on stdin; writes one JSON line
# with the catalog first, then one JSON line per input pair with Nova's
# verdict: {"ok": true} or {"ok": false, "message": "<str(exception)>"}.
import importlib.metadata
import json
import sys

from nova import exception
from nova.api.validation.extra_specs import validators


def describe(v):
    value = {k: (w.__name__ if k == 'type' else w) for k, w in v.value.items() if k != 'description'}
    return {
        'name': v.name,
        'name_regex': v.name_regex,
        'value': value,
        'deprecated': v.deprecated,
        'parameters': [{'name': p['name'], 'pattern': p['pattern']} for p in v.parameters],
    }


def main():
    out = sys.stdout
    out.write(json.dumps({
        'versions': {n: importlib.metadata.version(n) for n in ('nova', 'os-traits', 'os-resource-classes')},
        'validators': [describe(v) for v in validators.VALIDATORS.values()],
        'namespaces': sorted(validators.NAMESPACES),
    }) + '\n')
    for line in sys.stdin:
        pair = json.loads(line)
        try:
            validators.validate(pair['key'], pair['value'])
            out.write('{"ok": true}\n')
        except exception.ValidationError as e:
            out.write(json.dumps({'ok': False, 'message': str(e)}) + '\n')
    out.flush()


main()
