import {
  compilePythonRegex,
  type Diagnostic,
  didYouMean,
  isStackspecError,
  isUuidLike,
  type JsonSchemaObject,
  type Microversion,
  pyCompare,
  pyInt,
  pyLstrip,
  pyRepr,
  pySortedSet,
  pyStrip,
  requireObject,
  requireString,
  type StackspecError,
  suggest,
} from '@stackspec/core';
import { PLACEMENT_ERROR_CODES, queryError, routeNotFound } from './errors.js';
import { atLeast, toMicroversion, versionText } from './microversion.js';
import { type QueryInput, QueryParams } from './query-params.js';
import { allocationCandidatesQuerySchema, resourceProvidersQuerySchema } from './query-schemas.js';
import type {
  AllocationCandidatesRequest,
  PlacementQuery,
  QueryEndpoint,
  RequestGroup,
  ResourceAmounts,
  ResourceProvidersRequest,
  RootRequired,
} from './request.js';
import { schemaFailureText } from './schema-report.js';

const INVALID = 'Invalid query string parameters: ';
const GROUP_PAT = '[1-9][0-9]*';
const GROUP_PAT_1_33 = '[a-zA-Z0-9_-]{1,64}';
const GROUP_PREFIXES = ['resources', 'required', 'member_of', 'in_tree'] as const;
type GroupPrefix = (typeof GROUP_PREFIXES)[number];

/**
 * Outcome of {@link validatePlacementQuery}: the typed request, or Placement's
 * 400 as a core `ValidationError` (`error`) whose diagnostics are also given.
 */
export type ValidateQueryResult<T> =
  | { ok: true; request: T; diagnostics: Diagnostic[] }
  | { ok: false; error: StackspecError; diagnostics: Diagnostic[] };

// ---------------------------------------------------------------------------
// The JSON-schema step Placement runs first. Only the outcome matters to us:
// which single message jsonschema's best_match would report.

interface PropertyRule {
  name: string;
  check?: (value: string) => string | undefined;
  /** The schema keyword `check` stands for (`pattern`, `enum`, `format`). */
  keyword?: string;
}

interface QuerySchemaRules {
  properties: PropertyRule[];
  required?: string;
  /** Python regex sources of patternProperties, for the message and matching. */
  patterns?: string[];
  /** Placement's schema itself, printed in jsonschema's report. */
  schema: JsonSchemaObject;
}

// Placement's patterns are Python regexes applied with re.search, where `$`
// also matches before one final newline (so `limit=5%0A` passes).
const compiled = new Map<string, RegExp>();
function pySearch(source: string, text: string): RegExpExecArray | null {
  let re = compiled.get(source);
  if (!re) {
    re = compilePythonRegex(source);
    compiled.set(source, re);
  }
  return re.exec(text);
}

const LIMIT_PATTERN = '^[1-9][0-9]*$';

const limitRule: PropertyRule = {
  name: 'limit',
  keyword: 'pattern',
  check: (v) => (pySearch(LIMIT_PATTERN, v) ? undefined : `${pyRepr(v)} does not match '^[1-9][0-9]*$'`),
};
const groupPolicyRule: PropertyRule = {
  name: 'group_policy',
  keyword: 'enum',
  check: (v) =>
    v === 'none' || v === 'isolate' ? undefined : `${pyRepr(v)} is not one of ['none', 'isolate']`,
};
function uuidRule(name: string): PropertyRule {
  return {
    name,
    keyword: 'format',
    check: (v) => (isUuidLike(v) ? undefined : `${pyRepr(v)} is not a 'uuid'`),
  };
}

const KNOWN_KEYS = [
  'resources',
  'required',
  'member_of',
  'in_tree',
  'limit',
  'group_policy',
  'root_required',
  'same_subtree',
  'name',
  'uuid',
];

function unknownKeyHint(key: string, fallback: string | undefined): string | undefined {
  const base = key.replace(/[0-9]+$/, '');
  return didYouMean(suggest(base, KNOWN_KEYS)) ?? fallback;
}

// What webob's `dict(req.GET)` gives jsonschema: each key with its last value.
function instanceOf(params: QueryParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params.pairs) out[k] = v;
  return out;
}

function validateSchema(params: QueryParams, rules: QuerySchemaRules, parameterHint?: string): void {
  const keys = params.keys();
  const known = new Set(rules.properties.map((p) => p.name));
  const patterns = rules.patterns ?? [];
  // jsonschema's report after the message, as Placement's 400 carries it.
  const whole = (message: string, keyword: string) =>
    `${INVALID}${schemaFailureText({ message, keyword, schemaPath: [], schema: rules.schema, instancePath: [], instance: instanceOf(params) })}`;
  if (rules.required && !params.has(rules.required)) {
    throw queryError(whole(`'${rules.required}' is a required property`, 'required'), {
      diagnostic: 'placement-query/missing-parameter',
      parameter: rules.required,
    });
  }
  const extras = keys.filter((k) => !known.has(k) && !patterns.some((p) => pySearch(p, k)));
  if (extras.length) {
    const sorted = [...extras].sort(pyCompare);
    const joined = sorted.map(pyRepr).join(', ');
    let message: string;
    if (rules.patterns) {
      const regexes = [...rules.patterns].sort(pyCompare).map(pyRepr).join(', ');
      message = `${joined} ${sorted.length === 1 ? 'does' : 'do'} not match any of the regexes: ${regexes}`;
    } else {
      message = `Additional properties are not allowed (${joined} ${sorted.length === 1 ? 'was' : 'were'} unexpected)`;
    }
    const first = sorted[0] as string;
    const hint = KNOWN_KEYS.includes(first.replace(/[0-9]+$/, ''))
      ? (parameterHint ?? 'this parameter needs a newer microversion')
      : unknownKeyHint(first, parameterHint);
    throw queryError(whole(message, 'additionalProperties'), {
      diagnostic: 'placement-query/unknown-parameter',
      parameter: first,
      ...(hint ? { hint } : {}),
    });
  }
  for (const rule of rules.properties) {
    const value = params.last(rule.name);
    if (value === undefined || !rule.check) continue;
    const problem = rule.check(value);
    if (problem) {
      const text = schemaFailureText({
        message: problem,
        keyword: rule.keyword ?? 'type',
        schemaPath: ['properties', rule.name],
        schema: (rules.schema.properties as Record<string, unknown>)[rule.name],
        instancePath: [rule.name],
        instance: value,
      });
      throw queryError(`${INVALID}${text}`, {
        diagnostic: 'placement-query/invalid-value',
        parameter: rule.name,
      });
    }
  }
}

function groupPatterns(version: Microversion): string[] {
  const pat = atLeast(version, 33) ? GROUP_PAT_1_33 : GROUP_PAT;
  const prefixes: string[] = ['resources', 'required', 'member_of'];
  if (atLeast(version, 31)) prefixes.push('in_tree');
  return prefixes.map((p) => `^${p}(${pat})?$`);
}

function allocationCandidatesRules(version: Microversion): QuerySchemaRules {
  if (atLeast(version, 25)) {
    const properties: PropertyRule[] = [limitRule, groupPolicyRule];
    if (atLeast(version, 35)) properties.push({ name: 'root_required' });
    if (atLeast(version, 36)) properties.push({ name: 'same_subtree' });
    return { properties, patterns: groupPatterns(version), schema: allocationCandidatesQuerySchema(version) };
  }
  const properties: PropertyRule[] = [{ name: 'resources' }];
  if (atLeast(version, 16)) properties.push(limitRule);
  if (atLeast(version, 17)) properties.push({ name: 'required' });
  if (atLeast(version, 21)) properties.push({ name: 'member_of' });
  return { properties, required: 'resources', schema: allocationCandidatesQuerySchema(version) };
}

function resourceProvidersRules(version: Microversion): QuerySchemaRules {
  const properties: PropertyRule[] = [{ name: 'name' }, uuidRule('uuid')];
  if (atLeast(version, 3)) properties.push({ name: 'member_of' });
  if (atLeast(version, 4)) properties.push({ name: 'resources' });
  if (atLeast(version, 14)) properties.push(uuidRule('in_tree'));
  if (atLeast(version, 18)) properties.push({ name: 'required' });
  return { properties, schema: resourceProvidersQuerySchema(version) };
}

// ---------------------------------------------------------------------------
// Value grammars, each a faithful copy of Placement's rules.

const RESOURCES_FORM =
  'Badly formed resources parameter. Expected resources query string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024.';

/** Reads one `resources` value (`VCPU:2,MEMORY_MB:1024`); the last repeat of a class wins. */
export function parseResourcesValue(value: string, parameter = 'resources'): ResourceAmounts {
  requireString(value, 'The value of parseResourcesValue', 'placement-query/invalid-argument');
  requireString(parameter, 'The parameter of parseResourcesValue', 'placement-query/invalid-argument');
  const init = { diagnostic: 'placement-query/invalid-resources', parameter };
  if (pyStrip(value) === '') {
    throw queryError(`${RESOURCES_FORM} Got: empty string.`, {
      ...init,
      hint: 'give at least one CLASS:AMOUNT pair, such as VCPU:1',
    });
  }
  const result: ResourceAmounts = Object.create(null);
  for (const piece of value.split(',')) {
    const parts = piece.split(':');
    if (parts.length !== 2) throw queryError(`${RESOURCES_FORM} Got: ${piece}.`, init);
    const [rc, amountText] = parts as [string, string];
    const amount = pyInt(amountText);
    if (!amount.ok) {
      throw queryError(
        `Requested resource ${rc} expected positive integer amount. Got: ${amountText}.`,
        init,
      );
    }
    if (amount.value < 1n) {
      throw queryError(`Requested resource ${rc} requires amount >= 1. Got: ${amount.value}.`, init);
    }
    result[rc] = Number(amount.value);
  }
  return result;
}

/** One `required` value read: any-of sets that must all be met, and forbidden traits. */
export interface TraitsValue {
  required: string[][];
  forbidden: string[];
}

/** Reads one `required` value: `A,!B` (all-of, forbidden) or `in:A,B` (any-of, from 1.39). */
export function parseTraitsValue(
  value: string,
  options: { allowForbidden: boolean; allowAnyOf: boolean; parameter?: string },
): TraitsValue {
  requireString(value, 'The value of parseTraitsValue', 'placement-query/invalid-argument');
  requireObject(options, 'The options of parseTraitsValue', 'placement-query/invalid-argument');
  const init = { diagnostic: 'placement-query/invalid-required', parameter: options.parameter ?? 'required' };
  if (value.startsWith('in:')) {
    if (!options.allowAnyOf) {
      throw queryError(
        `${INVALID}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since microversion 1.39. Got: ${value}`,
        { ...init, hint: 'ask for microversion 1.39 or list the traits without in:' },
      );
    }
    const anyOf = value
      .slice(3)
      .split(',')
      .map((t) => pyStrip(t));
    if (anyOf.some((t) => t === '')) {
      throw queryError(
        `${INVALID}Expected 'required' parameter value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: ${value}`,
        init,
      );
    }
    if (anyOf.some((t) => t.startsWith('!'))) {
      throw queryError(
        `${INVALID}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden traits. Got: ${value}`,
        { ...init, hint: 'forbid traits in a separate required parameter: required=!TRAIT' },
      );
    }
    return { required: [pySortedSet(anyOf)], forbidden: [] };
  }
  const all = value.split(',').map((t) => pyStrip(t));
  // Placement strips every leading '!' (so '!!T' forbids T), a bug it keeps for compatibility.
  const forbidden = all.filter((t) => t.startsWith('!')).map((t) => pyLstrip(t, '!'));
  if ([...forbidden, ...all].some((t) => t === '')) {
    const form = options.allowForbidden ? 'HW_CPU_X86_VMX,!CUSTOM_MAGIC' : 'HW_CPU_X86_VMX,CUSTOM_MAGIC';
    throw queryError(
      `${INVALID}Expected 'required' parameter value of the form: ${form}. Got an empty trait in: ${value}`,
      init,
    );
  }
  if (forbidden.length && !options.allowForbidden) {
    throw queryError(
      `${INVALID}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: ${value}`,
      { ...init, hint: 'forbidden traits (!TRAIT) need microversion 1.22' },
    );
  }
  return {
    required: all.filter((t) => !t.startsWith('!')).map((t) => [t]),
    forbidden: pySortedSet(forbidden),
  };
}

function parseTraitsParams(params: QueryParams, key: string, version: Microversion): TraitsValue {
  const allowAnyOf = atLeast(version, 39);
  let values = params.getAll(key);
  // Before 1.39 only the last `required` counts.
  if (!allowAnyOf) values = values.slice(-1);
  const required: string[][] = [];
  const forbidden = new Set<string>();
  for (const value of values) {
    const r = parseTraitsValue(value, { allowForbidden: atLeast(version, 22), allowAnyOf, parameter: key });
    required.push(...r.required);
    for (const f of r.forbidden) forbidden.add(f);
  }
  return { required, forbidden: pySortedSet(forbidden) };
}

/** One `member_of` value read: an any-of set of aggregates, or aggregates that are forbidden. */
export interface MemberOfValue {
  required?: string[];
  forbidden?: string[];
}

/** Reads one `member_of` value: `U`, `in:U1,U2`, `!U` or `!in:U1,U2`. */
export function parseMemberOfValue(value: string, parameter = 'member_of'): MemberOfValue {
  requireString(value, 'The value of parseMemberOfValue', 'placement-query/invalid-argument');
  requireString(parameter, 'The parameter of parseMemberOfValue', 'placement-query/invalid-argument');
  const init = { diagnostic: 'placement-query/invalid-member-of', parameter };
  if (value.includes(',') && !(value.startsWith('in:') || value.startsWith('!in:'))) {
    throw queryError(
      `Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword using the valid microversion. Got: ${value}`,
      {
        ...init,
        hint: `write member_of=in:${value.replace(/^!/, '')} (any of) or member_of=!in:… (none of)`,
      },
    );
  }
  let required: string[] = [];
  let forbidden: string[] = [];
  if (value.startsWith('!in:')) forbidden = value.slice(4).split(',');
  else if (value.startsWith('!')) forbidden = [value.slice(1)];
  else if (value.startsWith('in:')) required = value.slice(3).split(',');
  else required = [value];
  for (const agg of new Set([...required, ...forbidden])) {
    if (!isUuidLike(agg)) {
      const inside = agg.startsWith('!') && value.startsWith('in:');
      throw queryError(`${INVALID}Expected 'member_of' parameter to contain valid UUID(s). Got: ${agg}`, {
        ...init,
        ...(inside
          ? {
              hint: "'!' cannot appear inside in:; forbid aggregates with a separate member_of=!in:… parameter",
            }
          : {}),
      });
    }
  }
  return {
    ...(required.length ? { required: pySortedSet(required) } : {}),
    ...(forbidden.length ? { forbidden: pySortedSet(forbidden) } : {}),
  };
}

function parseMemberOfParams(
  params: QueryParams,
  suffix: string,
  version: Microversion,
): { memberOf: string[][]; forbidden: string[] } {
  const key = `member_of${suffix}`;
  const values = params.getAll(key);
  if (!atLeast(version, 24) && values.length > 1) {
    throw queryError(`Multiple member_of${suffix} parameters are not supported`, {
      diagnostic: 'placement-query/repeated-member-of',
      parameter: key,
      hint: 'repeating member_of needs microversion 1.24; use one member_of=in:… before that',
    });
  }
  const memberOf: string[][] = [];
  const forbidden = new Set<string>();
  for (const value of values) {
    const r = parseMemberOfValue(value, key);
    if (r.required) memberOf.push(r.required);
    if (r.forbidden) {
      if (!atLeast(version, 32)) {
        throw queryError(
          `Forbidden member_of${suffix} parameters are not supported in the specified microversion`,
          {
            diagnostic: 'placement-query/forbidden-member-of-unsupported',
            parameter: key,
            hint: 'forbidden aggregates (member_of=!…) need microversion 1.32',
          },
        );
      }
      for (const f of r.forbidden) forbidden.add(f);
    }
  }
  return { memberOf, forbidden: pySortedSet(forbidden) };
}

function parseInTreeValue(value: string, parameter: string): string {
  const stripped = pyStrip(value);
  if (!isUuidLike(stripped)) {
    throw queryError(`${INVALID}Expected 'in_tree' parameter to be a format of uuid. Got: ${value}`, {
      diagnostic: 'placement-query/invalid-in-tree',
      parameter,
    });
  }
  return stripped;
}

// ---------------------------------------------------------------------------

function checkVersion(version: Microversion | string): Microversion {
  return toMicroversion(version);
}

/**
 * Parses a `GET /allocation_candidates` query exactly as Placement 8.0 does
 * at the given microversion, and throws its 400 on the first problem.
 *
 * The checks run in Placement's order: the version's JSON schema (unknown
 * or too-new keys), request-wide keys (`limit`, `group_policy`,
 * `root_required`, `same_subtree`), group keys in query order, orphan and
 * resourceless-group rules, trait conflicts, and the `group_policy`
 * requirement. Below 1.10 the route itself does not exist (404).
 *
 * The error is a `ValidationError` whose `message` is Placement's text and
 * whose `code` is Placement's error code (`placement.query.bad_value`,
 * `placement.query.duplicate_key`, `placement.query.missing_value` or
 * `placement.undefined_code`).
 *
 * @example
 * const r = parseAllocationCandidatesQuery(
 *   'resources=VCPU:1&member_of=!in:8a6c…,b2f1…', '1.32');
 * r.groups[0].forbiddenAggregates; // ['8a6c…', 'b2f1…']
 */
export function parseAllocationCandidatesQuery(
  query: QueryInput,
  microversion: Microversion | string,
): AllocationCandidatesRequest {
  const version = checkVersion(microversion);
  if (!atLeast(version, 10)) {
    throw routeNotFound(
      'GET /allocation_candidates exists from microversion 1.10.',
      'ask for microversion 1.10 or later',
    );
  }
  const params = QueryParams.from(query);
  validateSchema(
    params,
    allocationCandidatesRules(version),
    atLeast(version, 25) ? undefined : 'request groups need microversion 1.25',
  );

  // Request-wide parameters.
  // Placement's schema checks the last `limit` and `group_policy` (above);
  // its code then reads the first value with int() and a truth test, so a
  // first limit of 0 means no limit and a first group_policy other than
  // `isolate` acts as `none`.
  let limit: number | undefined;
  const limitText = params.first('limit');
  if (limitText !== undefined) {
    const n = pyInt(limitText);
    if (!n.ok || n.value < 0n) {
      // int() raising is a 500 in Placement; a negative first value silently
      // drops that many candidates from the end there. Both are a 400 here.
      const text = schemaFailureText({
        message: `${pyRepr(limitText)} does not match '^[1-9][0-9]*$'`,
        keyword: 'pattern',
        schemaPath: ['properties', 'limit'],
        schema: (allocationCandidatesQuerySchema(version).properties as Record<string, unknown>).limit,
        instancePath: ['limit'],
        instance: limitText,
      });
      throw queryError(`${INVALID}${text}`, {
        diagnostic: 'placement-query/invalid-value',
        parameter: 'limit',
        hint: 'give limit once, as a positive integer',
      });
    }
    if (n.value > 0n) limit = Number(n.value);
  }
  let groupPolicy: 'none' | 'isolate' | undefined;
  const policyText = params.first('group_policy');
  if (policyText !== undefined) groupPolicy = policyText === 'isolate' ? 'isolate' : 'none';
  let rootRequired: RootRequired | undefined;
  const rootValues = params.getAll('root_required');
  if (rootValues.length > 1) {
    throw queryError(
      "Query parameter 'root_required' may be specified only once.",
      { diagnostic: 'placement-query/duplicate-parameter', parameter: 'root_required' },
      PLACEMENT_ERROR_CODES.duplicateKey,
    );
  }
  if (rootValues.length === 1) {
    const r = parseTraitsValue(rootValues[0] as string, {
      allowForbidden: true,
      allowAnyOf: false,
      parameter: 'root_required',
    });
    const required = pySortedSet(r.required.map((s) => s[0] as string));
    const conflicts = required.filter((t) => r.forbidden.includes(t));
    if (conflicts.length) {
      throw queryError(
        `Conflicting required and forbidden traits found in root_required: ${conflicts.join(', ')}`,
        { diagnostic: 'placement-query/conflicting-traits', parameter: 'root_required' },
        PLACEMENT_ERROR_CODES.badValue,
      );
    }
    rootRequired = { required, forbidden: r.forbidden };
  }
  const sameSubtree: string[][] = [];
  for (const value of params.getAll('same_subtree')) {
    const suffixes = pySortedSet(value.split(',').map((s) => pyStrip(s)));
    if (suffixes.includes('')) {
      throw queryError(
        'Empty string (unsuffixed group) can not be specified in `same_subtree` ',
        {
          diagnostic: 'placement-query/invalid-same-subtree',
          parameter: 'same_subtree',
          hint: 'name only suffixed groups, such as same_subtree=_NIC,_CPU',
        },
        PLACEMENT_ERROR_CODES.badValue,
      );
    }
    sameSubtree.push(suffixes);
  }

  // Request groups, in order of first appearance.
  const keyPattern = `^(${GROUP_PREFIXES.join('|')})(${atLeast(version, 33) ? GROUP_PAT_1_33 : GROUP_PAT})?$`;
  const groups = new Map<string, RequestGroup>();
  for (const [key, value] of params.pairs) {
    const m = pySearch(keyPattern, key);
    if (!m) continue;
    const prefix = m[1] as GroupPrefix;
    const suffix = m[2] ?? '';
    let group = groups.get(suffix);
    if (!group) {
      group = {
        suffix,
        resources: Object.create(null),
        requiredTraits: [],
        forbiddenTraits: [],
        memberOf: [],
        forbiddenAggregates: [],
      };
      groups.set(suffix, group);
    }
    switch (prefix) {
      case 'resources':
        group.resources = parseResourcesValue(value, key);
        break;
      case 'required': {
        const t = parseTraitsParams(params, `required${suffix}`, version);
        group.requiredTraits = t.required;
        group.forbiddenTraits = t.forbidden;
        break;
      }
      case 'member_of': {
        const a = parseMemberOfParams(params, suffix, version);
        group.memberOf = a.memberOf;
        group.forbiddenAggregates = a.forbidden;
        break;
      }
      case 'in_tree':
        group.inTree = parseInTreeValue(value, key);
        break;
    }
  }
  const list = [...groups.values()];
  const hasResources = (g: RequestGroup) => Object.keys(g.resources).length > 0;

  if (atLeast(version, 36)) {
    const resourceless = list.filter((g) => !hasResources(g)).map((g) => g.suffix);
    const named = new Set(sameSubtree.flat());
    if (resourceless.length === list.length) {
      throw queryError(
        'There must be at least one resources or resources[$S] parameter.',
        { diagnostic: 'placement-query/no-resources', parameter: 'resources' },
        PLACEMENT_ERROR_CODES.missingValue,
      );
    }
    const bad = resourceless.filter((s) => !named.has(s)).sort(pyCompare);
    if (bad.length) {
      throw queryError(
        `Resourceless suffixed group request should be specified in \`same_subtree\` query param: bad group(s) - ${pyRepr(bad)}.`,
        {
          diagnostic: 'placement-query/resourceless-group',
          parameter: bad[0] === '' ? 'required' : `required${bad[0]}`,
          hint: 'give the group resources, or name its suffix in same_subtree',
        },
        PLACEMENT_ERROR_CODES.badValue,
      );
    }
    const unknown = [...named].filter((s) => !groups.has(s)).sort(pyCompare);
    if (unknown.length) {
      throw queryError(
        `Real suffixes should be specified in \`same_subtree\`: ${pyRepr(unknown)} not found in ${pyRepr(list.map((g) => g.suffix))}.`,
        { diagnostic: 'placement-query/unknown-group', parameter: 'same_subtree' },
        PLACEMENT_ERROR_CODES.badValue,
      );
    }
  } else {
    const traitOrphans = list.filter((g) => g.requiredTraits.length && !hasResources(g));
    if (traitOrphans.length) {
      throw queryError(
        `All traits parameters must be associated with resources.  Found the following orphaned traits keys: ${traitOrphans.map((g) => `required${g.suffix}`).join(', ')}`,
        { diagnostic: 'placement-query/orphaned-group', parameter: `required${traitOrphans[0]?.suffix}` },
      );
    }
    const aggOrphans = list.filter(
      (g) => !hasResources(g) && (g.memberOf.length || g.forbiddenAggregates.length),
    );
    if (aggOrphans.length) {
      throw queryError(
        `All member_of parameters must be associated with resources. Found the following orphaned member_of keys: ${aggOrphans.map((g) => `member_of${g.suffix}`).join(', ')}`,
        { diagnostic: 'placement-query/orphaned-group', parameter: `member_of${aggOrphans[0]?.suffix}` },
      );
    }
    const bare = list.find((g) => !hasResources(g));
    if (bare) {
      throw queryError('All request groups must specify resources.', {
        diagnostic: 'placement-query/orphaned-group',
        parameter: `resources${bare.suffix}`,
        hint: 'resourceless groups need microversion 1.36 and same_subtree',
      });
    }
    if (!list.length) {
      throw queryError('At least one request group (`resources` or `resources{$S}`) is required.', {
        diagnostic: 'placement-query/no-resources',
        parameter: 'resources',
      });
    }
  }

  if (atLeast(version, 22)) {
    const conflicts: string[] = [];
    for (const g of list) {
      for (const anyOf of g.requiredTraits) {
        if (anyOf.every((t) => g.forbiddenTraits.includes(t))) {
          conflicts.push(`required${g.suffix}: (${[...anyOf].sort(pyCompare).join(', ')})`);
        }
      }
    }
    if (conflicts.length) {
      throw queryError(
        `Conflicting required and forbidden traits found in the following traits keys: ${conflicts.sort(pyCompare).join(', ')}`,
        {
          diagnostic: 'placement-query/conflicting-traits',
          parameter: conflicts[0]?.split(':')[0] as string,
        },
      );
    }
  }

  if (!groupPolicy && list.filter((g) => g.suffix !== '').length > 1) {
    throw queryError(
      'The "group_policy" parameter is required when specifying more than one "resources{N}" parameter.',
      {
        diagnostic: 'placement-query/missing-group-policy',
        parameter: 'group_policy',
        hint: 'add group_policy=none (groups may share a provider) or group_policy=isolate',
      },
    );
  }

  return {
    endpoint: 'allocation_candidates',
    microversion: versionText(version),
    ...(limit !== undefined ? { limit } : {}),
    ...(groupPolicy ? { groupPolicy } : {}),
    ...(rootRequired ? { rootRequired } : {}),
    sameSubtree,
    groups: list.map((g) => ({ ...g, resources: { ...g.resources } })),
  };
}

/**
 * Parses a `GET /resource_providers` query exactly as Placement 8.0 does at
 * the given microversion, and throws its 400 on the first problem.
 *
 * Keys appear with their microversions (`member_of` 1.3, `resources` 1.4,
 * `in_tree` 1.14, `required` 1.18; `!` traits 1.22, repeated `member_of`
 * 1.24, forbidden aggregates 1.32, `in:` traits 1.39). A repeated `name`,
 * `uuid`, `in_tree` or `resources` keeps its last value, as does `required`
 * before 1.39. An empty `name` filters nothing.
 *
 * @example
 * parseResourceProvidersQuery('member_of=!8a6c…&required=!CUSTOM_GOLD', '1.32');
 */
export function parseResourceProvidersQuery(
  query: QueryInput,
  microversion: Microversion | string,
): ResourceProvidersRequest {
  const version = checkVersion(microversion);
  const params = QueryParams.from(query);
  validateSchema(params, resourceProvidersRules(version));
  let memberOf: string[][] = [];
  let forbiddenAggregates: string[] = [];
  if (params.has('member_of')) {
    const a = parseMemberOfParams(params, '', version);
    memberOf = a.memberOf;
    forbiddenAggregates = a.forbidden;
  }
  let requiredTraits: string[][] = [];
  let forbiddenTraits: string[] = [];
  if (params.has('required')) {
    const t = parseTraitsParams(params, 'required', version);
    requiredTraits = t.required;
    forbiddenTraits = t.forbidden;
  }
  const uuid = params.last('uuid');
  const name = params.last('name');
  const inTree = params.last('in_tree');
  const resourcesText = params.last('resources');
  const resources = resourcesText === undefined ? undefined : parseResourcesValue(resourcesText);
  return {
    endpoint: 'resource_providers',
    microversion: versionText(version),
    ...(name ? { name } : {}),
    ...(uuid !== undefined ? { uuid } : {}),
    ...(inTree !== undefined ? { inTree } : {}),
    ...(resources ? { resources: { ...resources } } : {}),
    requiredTraits,
    forbiddenTraits,
    memberOf,
    forbiddenAggregates,
  };
}

/** Parses a query for either endpoint; see the endpoint-specific parsers. */
export function parsePlacementQuery(
  endpoint: QueryEndpoint,
  query: QueryInput,
  microversion: Microversion | string,
): PlacementQuery {
  return endpoint === 'allocation_candidates'
    ? parseAllocationCandidatesQuery(query, microversion)
    : parseResourceProvidersQuery(query, microversion);
}

/** Like {@link parsePlacementQuery}, but returns Placement's error instead of throwing it. */
export function validatePlacementQuery(
  endpoint: QueryEndpoint,
  query: QueryInput,
  microversion: Microversion | string,
): ValidateQueryResult<PlacementQuery> {
  try {
    return { ok: true, request: parsePlacementQuery(endpoint, query, microversion), diagnostics: [] };
  } catch (error) {
    if (isStackspecError(error)) return { ok: false, error, diagnostics: error.diagnostics };
    throw error;
  }
}
