// A stand-in for the flavor part of Nova's compute API, so that `openstack flavor show` and
// `openstack flavor list --long` can be tried without a cloud. It answers the version document,
// GET /v2.1/flavors[/detail], GET /v2.1/flavors/{id} and GET /v2.1/flavors/{id}/os-extra_specs with
// the fields Nova 26 (Zed) returns at the requested microversion (OpenStack-API-Version: compute X.Y):
// `swap` is "" for no swap before 2.75, `description` appears from 2.55 and `extra_specs` from 2.61.
// `--omit FIELD,…` leaves fields out of every flavor, as an API in front of Nova may; the client then
// prints them as null. Other methods get 405 and other paths 404.
//
//   node nova-flavors.mjs [--port 8774] [--omit rxtx_factor,OS-FLV-DISABLED:disabled]
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8774' }, omit: { type: 'string', default: '' } },
});
const omit = new Set(values.omit.split(',').filter(Boolean));
const MAX = [2, 93];

const FLAVORS = [
  {
    id: 'c1.pinned',
    vcpus: 4,
    ram: 8192,
    disk: 40,
    specs: { 'hw:cpu_polcy': 'dedicated', 'hw:numa_nodes': '1', 'hw:mem_page_size': 'large' },
  },
  { id: 'c1.shared', vcpus: 2, ram: 4096, disk: 20, specs: { 'hw:cpu_policy': 'shared' } },
  { id: 'g1.small', vcpus: 8, ram: 16384, disk: 80, specs: { 'resources:VGPU': '1' } },
  { id: 'm1.tiny', vcpus: 1, ram: 512, disk: 1, specs: {} },
];

/** The microversion a request asks for: 2.1 without a header, as Nova. */
function microversion(req) {
  const header = req.headers['openstack-api-version'] ?? '';
  const m =
    /compute\s+(\d+)\.(\d+)/.exec(String(header)) ??
    /^(\d+)\.(\d+)$/.exec(String(req.headers['x-openstack-nova-api-version'] ?? ''));
  return m ? [Number(m[1]), Number(m[2])] : [2, 1];
}
const atLeast = (v, minor) => v[0] > 2 || (v[0] === 2 && v[1] >= minor);

function view(f, v, base) {
  const out = {
    id: f.id,
    name: f.id,
    ram: f.ram,
    disk: f.disk,
    swap: atLeast(v, 75) ? 0 : '',
    'OS-FLV-EXT-DATA:ephemeral': 0,
    'OS-FLV-DISABLED:disabled': false,
    vcpus: f.vcpus,
    'os-flavor-access:is_public': true,
    rxtx_factor: 1.0,
    links: [{ rel: 'self', href: `${base}/v2.1/flavors/${f.id}` }],
  };
  if (atLeast(v, 55)) out.description = null;
  if (atLeast(v, 61)) out.extra_specs = f.specs;
  for (const field of omit) delete out[field];
  return out;
}

const server = createServer((req, res) => {
  const v = microversion(req);
  const base = `http://${req.headers.host}`;
  const path = new URL(req.url ?? '/', base).pathname.replace(/\/$/, '');
  const send = (status, body) => {
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'OpenStack-API-Version': `compute ${v.join('.')}`,
      Vary: 'OpenStack-API-Version',
    });
    res.end(JSON.stringify(body));
  };
  if (req.method !== 'GET') return send(405, { error: 'only GET' });
  if (path === '' || path === '/v2.1') {
    const version = {
      id: 'v2.1',
      status: 'CURRENT',
      version: MAX.join('.'),
      min_version: '2.1',
      links: [{ rel: 'self', href: `${base}/v2.1/` }],
    };
    return send(200, path === '' ? { versions: [version] } : { version });
  }
  if (path === '/v2.1/flavors' || path === '/v2.1/flavors/detail') {
    const detail = path.endsWith('/detail');
    return send(200, {
      flavors: FLAVORS.map((f) => (detail ? view(f, v, base) : { id: f.id, name: f.id, links: [] })),
    });
  }
  const m = /^\/v2\.1\/flavors\/([^/]+)(\/os-extra_specs)?$/.exec(path);
  const flavor = m && FLAVORS.find((f) => f.id === decodeURIComponent(m[1]));
  if (!flavor) return send(404, { itemNotFound: { code: 404, message: 'Flavor could not be found.' } });
  if (m[2]) return send(200, { extra_specs: flavor.specs });
  return send(200, { flavor: view(flavor, v, base) });
});

server.listen(Number(values.port), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close());
process.on('SIGINT', () => server.close());
