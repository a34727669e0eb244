# Conformance oracle for the HTTP handler: Nova 26's FlavorExtraSpecsController
# run in-process behind Nova's own wsgi.Resource (microversion handling, JSON
# schema, faults), itself behind the two filters of Nova's api-paste pipeline
# that shape error answers: oslo's request body size limit and Nova's fault
# wrapper. Only the flavor lookup/save and the policy check are replaced by
# fakes. Reads JSON lines {method, flavor, key?, body?, headers?, chunked?}
# and writes {status, body, headers} per line; `chunked` sends the body
# without a Content-Length, as a chunked upload arrives.
import io
import json
import sys
import warnings

warnings.filterwarnings('ignore')

import webob  # noqa: E402
from oslo_middleware import sizelimit  # noqa: E402

from nova import context as nova_context  # noqa: E402
from nova import exception  # noqa: E402
from nova import objects  # noqa: E402
from nova.api import openstack as nova_openstack  # noqa: E402
from nova.api.openstack import wsgi  # noqa: E402
from nova.api.openstack.compute import flavors_extraspecs  # noqa: E402

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
nova_context.RequestContext.can = lambda self, *a, **k: True
resource = wsgi.Resource(flavors_extraspecs.FlavorExtraSpecsController())
# The order of Nova's pipeline: faultwrap ... sizelimit ... the API router.
app = nova_openstack.FaultWrapper(sizelimit.RequestBodySizeLimiter(resource, conf={}))
ACTIONS = {('POST', False): 'create', ('PUT', True): 'update', ('GET', False): 'index',
           ('GET', True): 'show', ('DELETE', True): 'delete'}


def call(r):
    key = r.get('key')
    path = '/v2.1/flavors/%s/os-extra_specs' % r['flavor'] + ('/' + key if key is not None else '')
    req = webob.Request.blank(path, method=r['method'])
    req.headers['Content-Type'] = 'application/json'
    for k, v in (r.get('headers') or {}).items():
        req.headers[k] = v
    if r.get('body') is not None:
        req.body = r['body'].encode('utf-8')
        if r.get('chunked'):
            req.body_file = io.BytesIO(req.body)
            req.content_length = None
    req.environ['nova.context'] = nova_context.RequestContext('u', 'p', is_admin=True)
    args = {'action': ACTIONS[(r['method'], key is not None)], 'flavor_id': r['flavor']}
    if key is not None:
        args['id'] = key
    req.environ['wsgiorg.routing_args'] = ((), args)
    resp = req.get_response(app)
    headers = {}
    for k, v in resp.headerlist:
        if k.lower() in ('openstack-api-version', 'x-openstack-nova-api-version', 'vary', 'content-type'):
            headers.setdefault(k.lower(), []).append(v)
    return {'status': resp.status_int, 'body': resp.text, 'headers': {k: ', '.join(v) for k, v in headers.items()}}


for line in sys.stdin:
    FLAVORS.clear()
    FLAVORS['f1'] = FakeFlavor({'hw:cpu_policy': 'shared'})
    print(json.dumps(call(json.loads(line))), flush=True)
