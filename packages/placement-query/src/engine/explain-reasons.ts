// Why a provider stops at a stage, in words: what the provider has against
// what the request asks. Each sentence names the value at fault
// ("VCPU 6 free of 32 (reserved 2, ratio 1.0), 8 asked"); the provider's
// name is put in front by the caller.
import { capacityOf, type Provider } from '../model/store.js';

/** Names for aggregate uuids (an inventory's aliases), used in reasons and labels. */
export type AggregateNames = ReadonlyMap<string, string>;

/** A ratio the way Placement prints it (a float: `1.0`, `16.0`, `1.5`). */
export function ratioText(ratio: number): string {
  return Number.isInteger(ratio) ? ratio.toFixed(1) : String(ratio);
}

/** An aggregate uuid, with its name when one is known: `6f0a…e02 (reserved-r1)`. */
export function aggregateText(uuid: string, names: AggregateNames | undefined): string {
  const name = names?.get(uuid);
  return name ? `${uuid} (${name})` : uuid;
}

/**
 * Why `p` cannot give `amount` of `rc`, Placement's capacity rule part by
 * part: no inventory, room (capacity, `(total - reserved) × allocation_ratio`,
 * minus what is used), then min_unit, max_unit and step_size. Undefined
 * when it can.
 */
export function capacityReason(p: Provider, rc: string, amount: number): string | undefined {
  const inv = p.inventories.get(rc);
  if (!inv) return `no ${rc} inventory`;
  const used = p.usages.get(rc) ?? 0;
  const limit = (inv.total - inv.reserved) * inv.allocation_ratio;
  if (used + amount > limit) {
    // "of" the capacity Placement reports; reserved and ratio say how it came from the total.
    const free = Math.max(0, Math.floor(limit - used));
    return `${rc} ${free} free of ${capacityOf(inv)} (reserved ${inv.reserved}, ratio ${ratioText(inv.allocation_ratio)}), ${amount} asked`;
  }
  if (inv.min_unit > amount) return `${rc} min_unit ${inv.min_unit} > ${amount} asked`;
  if (inv.max_unit < amount) return `${rc} max_unit ${inv.max_unit} < ${amount} asked`;
  if (amount % inv.step_size !== 0) return `${rc} step_size ${inv.step_size} does not divide ${amount}`;
  return undefined;
}

/** The required traits `p` lacks, as a reason (`lacks trait X` / `lacks traits X, Y`). */
export function lacksTraits(p: Provider, traits: readonly string[]): string {
  const missing = traits.filter((t) => !p.traits.has(t));
  return missing.length === 1 ? `lacks trait ${missing[0]}` : `lacks traits ${missing.join(', ')}`;
}

/** The forbidden traits `p` has. */
export function hasForbiddenTraits(p: Provider, traits: readonly string[]): string {
  const found = traits.filter((t) => p.traits.has(t));
  return found.length === 1 ? `has forbidden trait ${found[0]}` : `has forbidden traits ${found.join(', ')}`;
}

/** The first `in:` set of which `p` has no trait. */
export function lacksAnyTrait(p: Provider, sets: readonly (readonly string[])[]): string {
  const set = sets.find((s) => !s.some((t) => p.traits.has(t))) ?? [];
  return `has none of ${set.join(', ')}`;
}

/** The first member_of set none of whose aggregates `p` is in. */
export function notMember(p: Provider, sets: readonly (readonly string[])[], names?: AggregateNames): string {
  const set = sets.find((s) => !s.some((a) => p.aggregates.has(a))) ?? [];
  return set.length === 1
    ? `not in aggregate ${aggregateText(set[0] as string, names)}`
    : `in none of aggregates ${set.map((a) => aggregateText(a, names)).join(', ')}`;
}

/** The forbidden aggregate `p` is in. */
export function inForbiddenAggregate(
  p: Provider,
  aggregates: readonly string[],
  names?: AggregateNames,
): string {
  const agg = aggregates.find((a) => p.aggregates.has(a)) ?? '';
  const name = names?.get(agg);
  return `in aggregate ${agg} (${name ? `${name}, ` : ''}forbidden)`;
}

/** Why a root fails root_required. */
export function rootReason(
  root: Provider,
  required: readonly string[],
  forbidden: readonly string[],
): string {
  const missing = required.filter((t) => !root.traits.has(t));
  if (missing.length) return `root ${root.name} ${lacksTraits(root, missing)}`;
  const found = forbidden.filter((t) => root.traits.has(t));
  return `root ${root.name} ${hasForbiddenTraits(root, found)}`;
}

/** A group's name in words: `the unsuffixed group`, `group _NIC`. */
export function groupName(suffix: string): string {
  return suffix === '' ? 'the unsuffixed group' : `group ${suffix}`;
}
