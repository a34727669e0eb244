# Reads JSON lines {"id", "template", "files": {name: text}, "names": [...]} and merges the
# environment files with Heat's own server-side merge (environment_util.merge_environments),
# answering {"id", "ok", "merged"} or {"id", "ok": false, "type", "message"}.
import json
import logging
import sys

logging.disable(logging.CRITICAL)

import heat.common.config  # noqa: F401
from heat.common import environment_format, environment_util, template_format
from heat.engine import template as tmpl

for line in sys.stdin:
    item = json.loads(line)
    out = {"id": item["id"]}
    try:
        t = tmpl.Template(template_format.parse(item["template"]))
        schemata = t.all_param_schemata(item["files"])
        params = {}
        environment_format.default_for_missing(params)
        environment_util.merge_environments(item["names"], item["files"], params, schemata)
        out.update(ok=True, merged=params)
    except Exception as e:  # noqa: BLE001
        out.update(ok=False, type=type(e).__name__, message=str(e))
    sys.stdout.write(json.dumps(out) + "\n")
