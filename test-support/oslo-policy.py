"""Decides policy rules with a real OpenStack service's registered defaults.

Usage: /usr/bin/python3 oslo-policy.py nova|placement|ironic new|legacy|shipped
Reads JSON lines {"rule", "credentials": {"roles", "system_scope",
"project_id", "project_name", "project_domain_id", "user_id"}, "target"}
and prints one JSON boolean per line: whether the service's enforcer allows
the rule. `new` sets [oslo_policy] enforce_new_defaults = True and `legacy`
sets it False, both with enforce_scope off; `shipped` sets neither and
leaves the service's configuration as the release ships it (on Debian's
Nova 26, Placement 8.0 and oslo.policy 4.0, both off).
Each service builds its own request context, as its API does: Nova and
Placement check the target given (Nova's reads pass the caller's project),
Ironic passes the caller's policy values as the target (with the service
project name, as under rbac_service_role_elevated_access).
"""
import json
import logging
import sys
import warnings

warnings.filterwarnings('ignore')
logging.disable(logging.CRITICAL)

service, mode = sys.argv[1], sys.argv[2]
if mode not in ('new', 'legacy', 'shipped'):
    raise SystemExit('unknown mode %s' % mode)


def set_policy_mode(conf):
    if mode != 'shipped':
        conf.set_override('enforce_new_defaults', mode == 'new', group='oslo_policy')
        conf.set_override('enforce_scope', False, group='oslo_policy')


def context_args(c):
    return dict(
        user_id=c.get('user_id') or 'u',
        project_id=c.get('project_id'),
        project_name=c.get('project_name'),
        project_domain_id=c.get('project_domain_id'),
        roles=c.get('roles') or [],
        system_scope=c.get('system_scope'),
    )


if service == 'nova':
    import nova.conf
    from nova import context as nova_context
    from nova import exception
    from nova import policy

    CONF = nova.conf.CONF
    CONF([], project='nova')
    set_policy_mode(CONF)
    policy.reset()
    policy.init()

    def decide(rule, creds, target):
        ctx = nova_context.RequestContext(**context_args(creds))
        try:
            policy.authorize(ctx, rule, target)
            return True
        except exception.PolicyNotAuthorized:
            return False

elif service == 'placement':
    from oslo_config import cfg
    from placement import conf as placement_conf
    from placement import context as placement_context
    from placement import exception
    from placement import policy

    CONF = cfg.ConfigOpts()
    placement_conf.register_opts(CONF)
    # Placement requires a database URL before it reads any option; none is opened.
    CONF.set_default('connection', 'sqlite://', group='placement_database')
    CONF([], project='placement')
    set_policy_mode(CONF)
    policy.reset()
    policy.init(CONF)

    def decide(rule, creds, target):
        ctx = placement_context.RequestContext(**context_args(creds))
        try:
            ctx.can(rule, target=target)
            return True
        except exception.PolicyNotAuthorized:
            return False

elif service == 'ironic':
    from ironic.common import service as ironic_service

    ironic_service.prepare_command([])
    from oslo_config import cfg

    from ironic.common import context as ironic_context
    from ironic.common import policy

    CONF = cfg.CONF
    policy.get_enforcer()
    set_policy_mode(CONF)
    CONF.set_override('rbac_service_role_elevated_access', True)
    policy._ENFORCER = None
    enforcer = policy.get_enforcer()

    def decide(rule, creds, target):
        ctx = ironic_context.RequestContext(**context_args(creds))
        values = ctx.to_policy_values()
        return bool(enforcer.enforce(rule, values, ctx))

else:
    raise SystemExit('unknown service %s' % service)

for line in sys.stdin:
    case = json.loads(line)
    print(json.dumps(decide(case['rule'], case['credentials'], case.get('target') or {})), flush=True)
