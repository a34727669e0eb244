// Makes two responses comparable: base URLs, generated uuids, timestamps and
// request ids are replaced by placeholders; error bodies are decoded. A
// timestamp that is null stays null, so "never updated" and "updated" differ.
// In the /v1 document, the links to Ironic resources we do not serve are
// dropped (by name: an unknown key still shows up as a difference).

/** Resources of Ironic 21.4's /v1 document other than deploy_templates; we serve none of them. */
export const UNSERVED_RESOURCES = [
  'chassis',
  'nodes',
  'ports',
  'drivers',
  'portgroups',
  'volume',
  'lookup',
  'heartbeat',
  'conductors',
  'allocations',
  'events',
  'shards',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const COMPARED_HEADERS = [
  'x-openstack-ironic-api-minimum-version',
  'x-openstack-ironic-api-maximum-version',
  'x-openstack-ironic-api-version',
  'allow',
  'location',
  'content-type',
];

export interface Normalized {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A normaliser with its own uuid numbering (one per side and scenario). */
export function createNormalizer(base: string): (response: Response, path?: string) => Promise<Normalized> {
  const ids = new Map<string, string>();
  const text = (s: string) =>
    s
      .split(base)
      .join('{base}')
      .replace(UUID, (u) => {
        const key = u.toLowerCase();
        if (!ids.has(key)) ids.set(key, `<uuid${ids.size + 1}>`);
        return ids.get(key) as string;
      });
  const walk = (v: unknown, key?: string): unknown => {
    if ((key === 'created_at' || key === 'updated_at') && typeof v === 'string') return '<ts>';
    if (key === 'priority' && typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x, k)]),
      );
    }
    return v;
  };
  return async (response, path = '') => {
    const headers: Record<string, string> = {};
    for (const h of COMPARED_HEADERS) {
      const value = response.headers.get(h);
      if (value !== null) headers[h] = h === 'content-type' ? (value.split(';')[0] ?? value) : text(value);
    }
    const raw = await response.text();
    let body: unknown = raw;
    if (raw) {
      try {
        body = JSON.parse(raw);
        const message = (body as { error_message?: unknown }).error_message;
        if (typeof message === 'string') body = { error_message: JSON.parse(message) };
      } catch {
        body = raw;
      }
    }
    if (/^\/v1(\/|\.json)?$/.test(path) && body && typeof body === 'object' && !Array.isArray(body)) {
      body = Object.fromEntries(
        Object.entries(body as Record<string, unknown>).filter(([k]) => !UNSERVED_RESOURCES.includes(k)),
      );
    }
    return { status: response.status, headers, body: walk(body) };
  };
}
