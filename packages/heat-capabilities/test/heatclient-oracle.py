# Reads JSON lines {"id", "paths": [...]} and processes the environment files the way
# heatclient does before a stack create (template_utils.process_multiple_environments_and_files:
# registry paths rewritten to file:// URLs against each file's directory, deep_update merge).
# Answers {"id", "ok", "env"} or {"id", "ok": false, "message"}.
import json
import sys

from heatclient.common import template_utils

for line in sys.stdin:
    item = json.loads(line)
    out = {"id": item["id"]}
    try:
        files, env = template_utils.process_multiple_environments_and_files(env_paths=item["paths"])
        out.update(ok=True, env=env)
    except Exception as e:  # noqa: BLE001
        out.update(ok=False, message="%s: %s" % (type(e).__name__, e))
    sys.stdout.write(json.dumps(out) + "\n")
