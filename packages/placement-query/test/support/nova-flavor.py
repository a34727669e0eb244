"""Ask Nova how it turns flavors (and images) into a Placement query.

Usage: /usr/bin/python3 nova-flavor.py < cases.json
Reads a JSON list of cases {flavor, image, aggregates, isolate} and prints one
JSON line per case: {"query": <Nova's GET /allocation_candidates query
string>, "warnings": [...]} or {"error": <exception class>, "message": ...}.
Nova's scheduler code runs unchanged; only the aggregate lookup of its
isolate_aggregates request filter reads the case's aggregates instead of a
database.
"""
import json
import logging
import sys
import warnings

warnings.filterwarnings("ignore")

from nova import conf as nova_conf  # noqa: E402
from nova import context as nova_context  # noqa: E402
from nova import objects  # noqa: E402

objects.register_all()
CONF = nova_conf.CONF
CONF([], project="nova")

from nova.scheduler import request_filter, utils  # noqa: E402


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


collector = Collect()
logging.getLogger("nova").addHandler(collector)
logging.getLogger("nova").setLevel(logging.WARNING)
logging.getLogger("nova").propagate = False


class FakeAggregate:
    def __init__(self, uuid, metadata):
        self.uuid = uuid
        self.metadata = metadata


def non_matching(aggregates):
    # The SQL of AggregateList.get_non_matching_by_metadata_keys, over a list.
    def lookup(cls, context, ignored_keys, key_prefix, value):
        return [
            FakeAggregate(a["uuid"], a["metadata"])
            for a in aggregates
            if any(
                k.startswith(key_prefix) and v == value and k not in ignored_keys
                for k, v in a["metadata"].items()
            )
        ]

    return classmethod(lookup)


def run(case):
    fl = case["flavor"]
    flavor = objects.Flavor(
        name="flavor",
        vcpus=fl.get("vcpus", 0),
        memory_mb=fl.get("memory_mb", 0),
        root_gb=fl.get("root_gb", 0),
        ephemeral_gb=fl.get("ephemeral_gb", 0),
        swap=fl.get("swap", 0),
        extra_specs=fl.get("extra_specs", {}),
    )
    image = objects.ImageMeta.from_dict(
        {
            "id": "11111111-2222-4333-8444-555555555555",
            "name": "image",
            "properties": case.get("image", {}),
        }
    )
    spec = objects.RequestSpec(flavor=flavor, image=image, is_bfv=fl.get("is_bfv", False))
    ctx = nova_context.RequestContext("user", "project")
    CONF.set_override("enable_isolated_aggregate_filtering", case.get("isolate", False), "scheduler")
    objects.AggregateList.get_non_matching_by_metadata_keys = non_matching(case.get("aggregates", []))
    request_filter.isolate_aggregates(ctx, spec)
    # The filter builds the request once already; keep the warnings of the real build only.
    collector.messages = []
    return utils.resources_from_request_spec(ctx, spec, None).to_querystring()


for case in json.loads(sys.stdin.read()):
    collector.messages = []
    try:
        query = run(case)
        print(json.dumps({"query": query, "warnings": collector.messages}))
    except Exception as e:  # noqa: BLE001 - every refusal is an answer here
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
