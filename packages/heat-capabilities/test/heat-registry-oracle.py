# Reads JSON lines {"id", "registry", "type", "name"} and answers with what Heat's
# Environment.get_resource_info returns: {"id", "kind": "template"|"type"|"not-found"|"cycle", "value"}.
# The first line of output lists the types Heat knows without a user registry.
import json
import logging
import sys

logging.disable(logging.CRITICAL)
sys.setrecursionlimit(400)

import heat.common.config  # noqa: F401
from heat.common import exception
from heat.engine import environment, resources

resources.initialise()
known = sorted(k for k in resources.global_env().registry._registry if k != "resources")
sys.stdout.write(json.dumps({"known": known}) + "\n")

for line in sys.stdin:
    item = json.loads(line)
    out = {"id": item["id"]}
    try:
        env = environment.Environment({"resource_registry": item["registry"]})
        info = env.get_resource_info(item["type"], resource_name=item["name"])
        if isinstance(info, environment.TemplateResourceInfo):
            out.update(kind="template", value=info.template_name)
        else:
            out.update(kind="type", value=info.name)
    except exception.EntityNotFound:
        out.update(kind="not-found")
    except RecursionError:
        out.update(kind="cycle")
    except Exception as e:  # noqa: BLE001
        out.update(kind="error", value="%s: %s" % (type(e).__name__, e))
    sys.stdout.write(json.dumps(out) + "\n")
