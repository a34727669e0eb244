"""Start the real OpenStack Placement in-process (SQLite, noauth2) on a loopback port.

Usage: /usr/bin/python3 run-placement.py [PORT]
Prints one line "LISTENING <port>" on stdout once the server accepts requests;
serves until stdin closes (so the parent process controls its lifetime).
"""
import atexit
import os
import shutil
import signal
import sys
import tempfile
import threading
import warnings
import logging
from wsgiref import simple_server

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

from oslo_config import cfg  # noqa: E402
from placement import conf as placement_conf  # noqa: E402
from placement import db_api  # noqa: E402
from placement import deploy  # noqa: E402

workdir = tempfile.mkdtemp(prefix="placement-oracle-")
# The database and config live only as long as this process.
atexit.register(shutil.rmtree, workdir, ignore_errors=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
db_path = os.path.join(workdir, "placement.sqlite")
conf_path = os.path.join(workdir, "placement.conf")
with open(conf_path, "w") as f:
    f.write(
        "[DEFAULT]\n"
        "debug = False\n"
        "[api]\nauth_strategy = noauth2\n"
        "[placement_database]\n"
        f"connection = sqlite:///{db_path}\n"
        "sync_on_startup = True\n"
        "sqlite_synchronous = False\n"
        "[placement]\nrandomize_allocation_candidates = False\n"
    )

conf = cfg.ConfigOpts()
placement_conf.register_opts(conf)
conf(["--config-file", conf_path], project="placement")
db_api.configure(conf)
app = deploy.loadapp(conf)


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):  # keep stdout for the handshake line
        pass


port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
server = simple_server.make_server("127.0.0.1", port, app, handler_class=QuietHandler)
print(f"LISTENING {server.server_port}", flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
