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
logging.disable(logging.CRITICAL)

import webob  # noqa: E402
from oslo_middleware import sizelimit  # noqa: E402

import nova.conf  # noqa: E402
from nova import exception  # noqa: E402
from nova import objects  # noqa: E402
from nova import policy  # noqa: E402
from nova.api import auth  # noqa: E402
from nova.api import openstack as nova_openstack  # noqa: E402
from nova.api.openstack import wsgi  # noqa: E402
from nova.api.openstack.compute import flavors_extraspecs  # noqa: E402

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


class FakeFlavor:
    def __init__(self, specs):
        self.extra_specs = dict(specs)

    def save(self):
        pass


FLAVORS = {}


def get_by_flavor_id(ctx, flavor_id, read_deleted=None):
    if flavor_id not in FLAVORS:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    return FLAVORS[flavor_id]


objects.Flavor.get_by_flavor_id = staticmethod(get_by_flavor_id)
resource = wsgi.Resource(flavors_extraspecs.FlavorExtraSpecsController())
app = nova_openstack.FaultWrapper(
    auth.NovaKeystoneContext(sizelimit.RequestBodySizeLimiter(resource, conf={})))
ACTIONS = {('POST', False): 'create', ('PUT', True): 'update', ('GET', False): 'index',
           ('GET', True): 'show', ('DELETE', True): 'delete'}

for line in sys.stdin:
    r = json.loads(line)
    FLAVORS.clear()
    FLAVORS['f1'] = FakeFlavor({'hw:cpu_policy': 'shared'})
    key = r.get('key')
    path = '/v2.1/flavors/%s/os-extra_specs' % r['flavor'] + ('/' + key if key is not None else '')
    req = webob.Request.blank(path, method=r['method'])
    req.headers['Content-Type'] = 'application/json'
    # keystonemiddleware always names the user; Nova answers 401 without one.
    req.headers['X-User-Id'] = 'u1'
    for k, v in (r.get('headers') or {}).items():
        req.headers[k] = v
    if r.get('body_hex') is not None:
        req.body = bytes.fromhex(r['body_hex'])
    args = {'action': ACTIONS[(r['method'], key is not None)], 'flavor_id': r['flavor']}
    if key is not None:
        args['id'] = key
    req.environ['wsgiorg.routing_args'] = ((), args)
    resp = req.get_response(app)
    print(json.dumps({'status': resp.status_int, 'body': resp.text}), flush=True)
