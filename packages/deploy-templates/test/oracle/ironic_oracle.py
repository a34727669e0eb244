"""Runs Debian's Ironic API in this process (SQLite, no conductor) as a test oracle.

Usage: python3 ironic_oracle.py [noauth|headers]
Prints "READY <port>" once listening on 127.0.0.1. A private endpoint
POST /__oracle__/reset (JSON body: {"max_limit": N}) empties the deploy
template tables and applies per-test configuration.
"""
import json
import logging
import sys
import tempfile
import warnings
from wsgiref import simple_server

warnings.simplefilter('ignore')
mode = sys.argv[1] if len(sys.argv) > 1 else 'noauth'

from ironic.common import service as ironic_service  # noqa: E402

ironic_service.prepare_command([])

from oslo_config import cfg  # noqa: E402

CONF = cfg.CONF
workdir = tempfile.mkdtemp(prefix='ironic-oracle-')
CONF.set_override('connection', 'sqlite:///%s/ironic.sqlite' % workdir, group='database')
CONF.set_override('rpc_transport', 'json-rpc')
CONF.set_override('transport_url', 'fake:/')
CONF.set_override('notification_level', 'info')
CONF.set_override('driver', ['test'], group='oslo_messaging_notifications')
if mode == 'headers':
    CONF.set_override('auth_strategy', 'keystone')
    from ironic.common import policy as ironic_policy  # registers [oslo_policy]

    ironic_policy.get_enforcer()
    CONF.set_override('enforce_scope', False, group='oslo_policy')
    CONF.set_override('enforce_new_defaults', True, group='oslo_policy')
    # Trust the identity headers as they arrive, like Ironic's own RBAC tests.
    from keystonemiddleware import auth_token

    class _PassThrough:
        def __init__(self, app, conf):
            self.app = app

        def __call__(self, environ, start_response):
            return self.app(environ, start_response)

    auth_token.AuthProtocol = _PassThrough
else:
    CONF.set_override('auth_strategy', 'noauth')

logging.disable(logging.CRITICAL)

from ironic.common import rpc  # noqa: E402
from ironic.db import migration  # noqa: E402

rpc.init(CONF)
migration.create_schema()

from ironic.api import app as api_app  # noqa: E402
from ironic.db.sqlalchemy import api as db_api  # noqa: E402
from ironic.db.sqlalchemy import models  # noqa: E402

application = api_app.VersionSelectorApplication()


def reset(body):
    with db_api._session_for_write() as session:
        session.query(models.DeployTemplateStep).delete()
        session.query(models.DeployTemplate).delete()
        try:
            session.execute(db_api.sa.text(
                "DELETE FROM sqlite_sequence WHERE name IN "
                "('deploy_templates', 'deploy_template_steps')"))
        except Exception:
            pass
    CONF.set_override('max_limit', int(body.get('max_limit', 1000)), group='api')


def app(environ, start_response):
    if environ.get('PATH_INFO') == '/__oracle__/reset':
        length = int(environ.get('CONTENT_LENGTH') or 0)
        raw = environ['wsgi.input'].read(length) if length else b'{}'
        reset(json.loads(raw or b'{}'))
        start_response('204 No Content', [])
        return [b'']
    return application(environ, start_response)


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class QueueingServer(simple_server.WSGIServer):
    # One request at a time, but let many clients wait instead of being refused.
    request_queue_size = 256


server = simple_server.make_server('127.0.0.1', 0, app, server_class=QueueingServer,
                                   handler_class=QuietHandler)
print('READY %d' % server.server_port, flush=True)
server.serve_forever()
