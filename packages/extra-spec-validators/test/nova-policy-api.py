# Oracle for the extra specs API under policy: Nova 26's controller behind
# Nova's own keystone context middleware (credentials from X-Roles,
# X-Project-Id, OpenStack-System-Scope…), Nova's registered policy defaults
# and the fault and size-limit filters of its pipeline; only the flavor
# lookup and save are fakes. Usage: nova-policy-api.py new|legacy|shipped
# (new sets enforce_new_defaults, legacy unsets it, both with enforce_scope
# off; shipped leaves both as Nova 26 ships them). Reads JSON lines {method,
# flavor, key?, body_hex?, headers?} and writes {status, body} per line.
import json
import logging
import sys
import warnings

warnings.filterwarnings('ignore')
# nova_flavor_fakes sits beside this script: compiling it must not write into the source tree.
sys.dont_write_bytecode = True
logging.disable(logging.CRITICAL)

from oslo_middleware import sizelimit  # noqa: E402

import nova.conf  # noqa: E402
from nova import objects  # noqa: E402
from nova import policy  # noqa: E402
from nova.api import auth  # noqa: E402
from nova.api import openstack as nova_openstack  # noqa: E402
from nova_flavor_fakes import build_request, controller_resource, reset_flavors  # noqa: E402

CONF = nova.conf.CONF
CONF([], project='nova')
if sys.argv[1] not in ('new', 'legacy', 'shipped'):
    raise SystemExit('unknown mode %s' % sys.argv[1])
if sys.argv[1] != 'shipped':
    CONF.set_override('enforce_new_defaults', sys.argv[1] == 'new', group='oslo_policy')
    CONF.set_override('enforce_scope', False, group='oslo_policy')
policy.reset()
policy.init()
objects.register_all()

resource = controller_resource()
app = nova_openstack.FaultWrapper(
    auth.NovaKeystoneContext(sizelimit.RequestBodySizeLimiter(resource, conf={})))

for line in sys.stdin:
    r = json.loads(line)
    reset_flavors()
    # keystonemiddleware always names the user; Nova answers 401 without one.
    req = build_request(r, {'X-User-Id': 'u1'})
    if r.get('body_hex') is not None:
        req.body = bytes.fromhex(r['body_hex'])
    resp = req.get_response(app)
    print(json.dumps({'status': resp.status_int, 'body': resp.text}), flush=True)
