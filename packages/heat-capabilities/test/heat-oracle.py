# Reads JSON lines {"id", "kind": "template"|"environment", "text"} on stdin and
# writes one JSON line per input with Heat's verdict: {"id", "ok", "type", "message"}.
# Templates go through heat.common.template_format.parse, the version lookup and
# Template.validate(), plus the per-version resource keyword check Heat makes when
# it builds a stack. Environments go through heat.common.environment_format.parse
# and are loaded into a user Environment (registry, hooks, event sinks).
import json
import logging
import sys

logging.disable(logging.CRITICAL)

import heat.common.config  # noqa: F401  (registers max_template_size)
from heat.common import environment_format, template_format
from heat.engine import environment, resources
from heat.engine import template as tmpl

resources.initialise()

for line in sys.stdin:
    item = json.loads(line)
    out = {"id": item["id"], "ok": True}
    try:
        if item["kind"] == "template":
            parsed = template_format.parse(item["text"])
            if item.get("echo"):
                out["value"] = parsed
            t = tmpl.Template(parsed)
            t.validate()
            keys = getattr(t, "_RESOURCE_KEYS", None)
            if keys is not None and "heat_template_version" in parsed:
                for name, snippet in (parsed.get("resources") or {}).items():
                    invalid = set(snippet) - set(keys)
                    if invalid:
                        raise ValueError("Invalid keyword(s) inside a resource definition: %s" % ", ".join(sorted(invalid)))
        else:
            env = environment_format.parse(item["text"])
            environment.Environment(env)
            if item.get("echo"):
                out["value"] = env
    except Exception as e:  # any failure is a rejection
        out["ok"] = False
        out["type"] = type(e).__name__
        out["message"] = str(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
