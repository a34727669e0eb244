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
# nova_flavor_fakes sits beside this script: compiling it must not write into the source tree.
sys.dont_write_bytecode = True

from oslo_middleware import sizelimit  # noqa: E402

from nova import context as nova_context  # noqa: E402
from nova import objects  # noqa: E402
from nova.api import openstack as nova_openstack  # noqa: E402
from nova_flavor_fakes import build_request, controller_resource, reset_flavors  # noqa: E402

objects.register_all()
nova_context.RequestContext.can = lambda self, *a, **k: True
resource = controller_resource()
# The order of Nova's pipeline: faultwrap ... sizelimit ... the API router.
app = nova_openstack.FaultWrapper(sizelimit.RequestBodySizeLimiter(resource, conf={}))


def call(r):
    req = build_request(r)
    if r.get('body') is not None:
        req.body = r['body'].encode('utf-8')
        if r.get('chunked'):
            req.body_file = io.BytesIO(req.body)
            req.content_length = None
    req.environ['nova.context'] = nova_context.RequestContext('u', 'p', is_admin=True)
    resp = req.get_response(app)
    headers = {}
    for k, v in resp.headerlist:
        if k.lower() in ('openstack-api-version', 'x-openstack-nova-api-version', 'vary', 'content-type'):
            headers.setdefault(k.lower(), []).append(v)
    return {'status': resp.status_int, 'body': resp.text, 'headers': {k: ', '.join(v) for k, v in headers.items()}}


for line in sys.stdin:
    reset_flavors()
    print(json.dumps(call(json.loads(line))), flush=True)
