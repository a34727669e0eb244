// A seeded session of writes sent to both Placements after a cloud is
// loaded: allocations that fit, overflow capacity or break min_unit,
// max_unit and step_size; consumer generations right and stale; inventory
// changes under usage; traits and aggregates with current and stale provider
// generations; deleting parents, providers in use and free leaves; duplicate
// names. Every answer is compared in full (status and body, request ids
// aside), and reads of the touched state follow each write.
import type { PlacementSend } from '../../src/model/plan.js';
import { chance, int, pick, seeded } from '../support/generate.js';
import type { SendResult } from '../support/oracle.js';
import { type Cloud, uuidFrom } from './cloud.js';

/** One write or read of the session and how the two answers compare. */
export interface WriteOutcome {
  request: string;
  same: boolean;
  detail?: string;
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(normalise);
    return items.every((v) => typeof v === 'string') ? [...(items as string[])].sort() : items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      if (k === 'request_id') continue;
      out[k] = normalise((value as Record<string, unknown>)[k]);
    }
    return out;
  }
  return value;
}

function sameAnswer(a: SendResult, b: SendResult): string | undefined {
  if (a.status !== b.status)
    return `status ${a.status} vs ours ${b.status}: ${JSON.stringify(a.body).slice(0, 400)} | ${JSON.stringify(b.body).slice(0, 400)}`;
  const ta = JSON.stringify(normalise(a.body));
  const tb = JSON.stringify(normalise(b.body));
  return ta === tb ? undefined : `body\n    theirs: ${ta.slice(0, 600)}\n    ours:   ${tb.slice(0, 600)}`;
}

/**
 * Runs `steps` random writes (each followed by a read of what it touched)
 * against both Placements and returns every comparison.
 */
export async function runWriteSession(
  seed: number,
  cloud: Cloud,
  theirs: (version: string) => PlacementSend,
  ours: (version: string) => PlacementSend,
  steps: number,
): Promise<WriteOutcome[]> {
  const r = seeded(seed ^ 0x5eed);
  const outcomes: WriteOutcome[] = [];
  const both = async (version: string, method: string, path: string, body?: unknown) => {
    const t = await theirs(version)(method, path, body);
    const o = await ours(version)(method, path, body);
    const detail = sameAnswer(t, o);
    outcomes.push({
      request: `${version} ${method} ${path} ${body === undefined ? '' : JSON.stringify(body).slice(0, 300)}`,
      same: !detail,
      ...(detail ? { detail } : {}),
    });
    return o;
  };
  const live = new Set(cloud.providers.map((p) => p.uuid));
  const consumers: { uuid: string; generation: number | null }[] = [];
  const generation = async (uuid: string): Promise<number> => {
    const g = await ours('1.39')('GET', `/resource_providers/${uuid}`);
    return (g.body as { generation?: number })?.generation ?? 0;
  };
  const someProvider = (withClasses = false) => {
    const pool = cloud.providers.filter((p) => live.has(p.uuid) && (!withClasses || p.classes.length));
    return pool.length ? pick(r, pool) : undefined;
  };
  for (let i = 0; i < steps; i += 1) {
    const k = int(r, 0, 11);
    const p = someProvider(k <= 5);
    if (!p) break;
    const base = `/resource_providers/${p.uuid}`;
    if (k <= 2) {
      // A new consumer on one or two providers of a tree.
      const tree = cloud.providers.filter((q) => q.root === p.root && live.has(q.uuid) && q.classes.length);
      const allocations: Record<string, { resources: Record<string, number> }> = {};
      for (const q of [p, ...(chance(r, 0.4) && tree.length ? [pick(r, tree)] : [])]) {
        const rc = pick(r, q.classes);
        const inv = (await ours('1.39')('GET', `/resource_providers/${q.uuid}/inventories/${rc}`)).body as {
          total?: number;
          reserved?: number;
          allocation_ratio?: number;
          step_size?: number;
          max_unit?: number;
        };
        const usages = (await ours('1.39')('GET', `/resource_providers/${q.uuid}/usages`)).body as {
          usages?: Record<string, number>;
        };
        const cap = Math.trunc(((inv.total ?? 1) - (inv.reserved ?? 0)) * (inv.allocation_ratio ?? 1));
        const left = cap - (usages.usages?.[rc] ?? 0);
        const step = inv.step_size ?? 1;
        const amount = pick(r, [
          Math.max(
            step,
            Math.min(left, inv.max_unit ?? left) - (Math.min(left, inv.max_unit ?? left) % step),
          ),
          left + step,
          step,
          (inv.max_unit ?? 1) + 1,
          step > 1 ? step + 1 : 1,
        ]);
        allocations[q.uuid] = { resources: { ...allocations[q.uuid]?.resources, [rc]: Math.max(1, amount) } };
      }
      const uuid = uuidFrom(r);
      const version = pick(r, ['1.39', '1.39', '1.28', '1.12']);
      const body =
        version === '1.12'
          ? { allocations, project_id: 'p1', user_id: 'u1' }
          : version === '1.28'
            ? { allocations, project_id: 'p1', user_id: 'u1', consumer_generation: null }
            : {
                allocations,
                project_id: 'p1',
                user_id: 'u1',
                consumer_generation: null,
                consumer_type: 'INSTANCE',
              };
      const res = await both(version, 'PUT', `/allocations/${uuid}`, body);
      if (res.status === 204) consumers.push({ uuid, generation: 1 });
      await both('1.39', 'GET', `/allocations/${uuid}`);
      for (const q of Object.keys(allocations)) await both('1.39', 'GET', `/resource_providers/${q}/usages`);
    } else if (k === 3 && consumers.length) {
      // Replace a consumer's allocations with a right or stale consumer generation.
      const c = pick(r, consumers);
      const current = (await ours('1.39')('GET', `/allocations/${c.uuid}`)).body as {
        allocations?: Record<string, { resources: Record<string, number> }>;
        consumer_generation?: number;
      };
      const allocations = Object.fromEntries(
        Object.entries(current.allocations ?? {}).map(([u, a]) => [
          u,
          {
            resources: Object.fromEntries(
              Object.entries(a.resources).map(([rc, n]) => [rc, chance(r, 0.5) ? n * 2 : n]),
            ),
          },
        ]),
      );
      const stale = chance(r, 0.3);
      const res = await both('1.39', 'PUT', `/allocations/${c.uuid}`, {
        allocations,
        project_id: 'p1',
        user_id: 'u1',
        consumer_generation: stale
          ? (current.consumer_generation ?? 0) + 5
          : (current.consumer_generation ?? null),
        consumer_type: 'INSTANCE',
      });
      if (res.status === 204) await both('1.39', 'GET', `/allocations/${c.uuid}`);
    } else if (k === 4) {
      // Delete a consumer (sometimes one that does not exist).
      const c =
        consumers.length && chance(r, 0.8)
          ? consumers.splice(int(r, 0, consumers.length - 1), 1)[0]
          : undefined;
      await both('1.39', 'DELETE', `/allocations/${c?.uuid ?? uuidFrom(r)}`);
    } else if (k === 5) {
      // Change one inventory, maybe below its usage, with a right or stale generation.
      const rc = pick(r, p.classes);
      const g = await generation(p.uuid);
      const cur = (await ours('1.39')('GET', `${base}/inventories/${rc}`)).body as Record<string, number>;
      const total = pick(r, [1, Math.max(1, Math.floor((cur.total ?? 2) / 2)), (cur.total ?? 1) * 2]);
      await both('1.39', 'PUT', `${base}/inventories/${rc}`, {
        resource_provider_generation: chance(r, 0.2) ? g + 1 : g,
        total,
        reserved: Math.min(cur.reserved ?? 0, total),
        min_unit: 1,
        max_unit: total,
        step_size: 1,
        allocation_ratio: cur.allocation_ratio ?? 1,
      });
      await both('1.39', 'GET', `${base}/inventories`);
      await both('1.39', 'GET', `${base}/usages`);
    } else if (k === 6) {
      const rc = pick(r, p.classes.length ? p.classes : ['VCPU']);
      await both('1.39', 'DELETE', `${base}/inventories/${rc}`);
    } else if (k === 7) {
      const g = await generation(p.uuid);
      await both('1.39', 'PUT', `${base}/traits`, {
        resource_provider_generation: chance(r, 0.2) ? g - 1 : g,
        traits: [
          ...new Set([
            pick(r, cloud.traits),
            pick(r, cloud.traits),
            ...(chance(r, 0.1) ? ['CUSTOM_NOT_DEFINED'] : []),
          ]),
        ],
      });
      await both('1.39', 'GET', `${base}/traits`);
    } else if (k === 8) {
      const g = await generation(p.uuid);
      await both('1.39', 'PUT', `${base}/aggregates`, {
        resource_provider_generation: chance(r, 0.2) ? g + 3 : g,
        aggregates: [
          ...new Set([pick(r, cloud.aggregates), ...(chance(r, 0.5) ? [pick(r, cloud.aggregates)] : [])]),
        ],
      });
      await both('1.39', 'GET', `${base}/aggregates`);
    } else if (k === 9) {
      // Delete a provider: parents, providers in use and free leaves answer differently.
      const res = await both('1.39', 'DELETE', base);
      if (res.status === 204) live.delete(p.uuid);
    } else if (k === 10) {
      // Create a provider: under a live provider, or with a name already taken.
      const dup = chance(r, 0.4);
      const uuid = uuidFrom(r);
      const under = chance(r, 0.5);
      const res = await both('1.39', 'POST', '/resource_providers', {
        name: dup ? p.name : `new-${uuid.slice(0, 8)}`,
        uuid,
        ...(under ? { parent_provider_uuid: p.uuid } : {}),
      });
      if (res.status === 200) {
        live.add(uuid);
        cloud.providers.push({
          uuid,
          name: `new-${uuid.slice(0, 8)}`,
          root: under ? p.root : uuid,
          parent: under ? p.uuid : null,
          kind: 'device',
          classes: [],
        });
      }
    } else {
      await both(
        pick(r, ['1.39', '1.14', '1.0']),
        'GET',
        pick(r, [
          base,
          `${base}/inventories`,
          `${base}/allocations`,
          `${base}/usages`,
          '/usages?project_id=p1',
        ]),
      );
    }
  }
  return outcomes;
}
