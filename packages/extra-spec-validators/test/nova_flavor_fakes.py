# What the two extra spec API oracles (nova-api.py, nova-policy-api.py) have
# in common: Nova 26's FlavorExtraSpecsController with only the flavor lookup
# and save replaced, and requests shaped as Nova's router hands them to it.
# Imported by those scripts, which Python runs with this folder on its path.
import webob

from nova import exception
from nova import objects
from nova.api.openstack import wsgi
from nova.api.openstack.compute import flavors_extraspecs


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


def controller_resource():
    """The controller behind Nova's wsgi.Resource, flavors faked: call after objects.register_all()."""
    objects.Flavor.get_by_flavor_id = staticmethod(get_by_flavor_id)
    return wsgi.Resource(flavors_extraspecs.FlavorExtraSpecsController())


def reset_flavors():
    """Every request line starts from the same single flavor, f1."""
    FLAVORS.clear()
    FLAVORS['f1'] = FakeFlavor({'hw:cpu_policy': 'shared'})


# The controller method Nova's router picks, by HTTP method and whether a key is named.
ACTIONS = {('POST', False): 'create', ('PUT', True): 'update', ('GET', False): 'index',
           ('GET', True): 'show', ('DELETE', True): 'delete'}


def build_request(r, headers=None):
    """The request for line `r` ({method, flavor, key?, headers?}), with `headers` set before the line's own."""
    key = r.get('key')
    path = '/v2.1/flavors/%s/os-extra_specs' % r['flavor'] + ('/' + key if key is not None else '')
    req = webob.Request.blank(path, method=r['method'])
    req.headers['Content-Type'] = 'application/json'
    for given in (headers, r.get('headers')):
        for k, v in (given or {}).items():
            req.headers[k] = v
    args = {'action': ACTIONS[(r['method'], key is not None)], 'flavor_id': r['flavor']}
    if key is not None:
        args['id'] = key
    req.environ['wsgiorg.routing_args'] = ((), args)
    return req
