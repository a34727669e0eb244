// The route table of the HTTP kit. Matching is hono's: SmartRouter picks
// RegExpRouter (every route compiled into one regular expression, static
// paths looked up in a map) and falls back to TrieRouter for a table the
// former cannot compile. Both are plain JavaScript without Node built-ins, so
// the table runs wherever `Request` does.
import { METHOD_NAME_ALL, type Result, type Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { SpecError } from '../errors.js';

/** The method key of a route that answers every method itself. */
export const ANY_METHOD = '*';

/**
 * One path of a {@link RouteTable}: a template whose `{name}` segments match
 * one path segment each (`/resource_providers/{uuid}`, as OpenStack's API
 * references write them), and what answers each method. The order of
 * `methods` is the order `Allow` lists them in; the key {@link ANY_METHOD}
 * takes any method not listed.
 */
export interface RouteDefinition<H> {
  readonly path: string;
  readonly methods: Readonly<Record<string, H>>;
}

/** A route of a table, as matched: its definition and the methods `Allow` names. */
export interface TableRoute<H> extends RouteDefinition<H> {
  /** The listed methods, in declared order ({@link ANY_METHOD} left out). */
  readonly allow: readonly string[];
}

/** A path a route matched, with the segments its `{name}` parts took (as sent: still percent-encoded). */
export interface PathMatch<H> {
  readonly route: TableRoute<H>;
  readonly params: Readonly<Record<string, string>>;
}

/** The outcome of {@link RouteTable.match}: a handler, a 405 with the methods to allow, or a 404. */
export type RouteMatch<H> =
  | {
      readonly status: 200;
      readonly route: TableRoute<H>;
      readonly params: Readonly<Record<string, string>>;
      readonly handler: H;
    }
  | { readonly status: 405; readonly route: TableRoute<H>; readonly params: Readonly<Record<string, string>> }
  | { readonly status: 404 };

/** Routes by path template and method; see {@link createRouteTable}. */
export interface RouteTable<H> {
  /** The route whose template matches `path`, or `undefined` (a 404). */
  find(path: string): PathMatch<H> | undefined;
  /** What answers `method` on `path`: 200 with the handler, 405 (the path exists) or 404. */
  match(method: string, path: string): RouteMatch<H>;
  /** Every route, in declared order. */
  readonly routes: readonly TableRoute<H>[];
}

/**
 * What answers `method` on a route: its own entry, else its
 * {@link ANY_METHOD} entry, else `undefined` (a 405). Only the route's own
 * keys count, so a method named `constructor` finds nothing.
 */
export function routeHandler<H>(route: RouteDefinition<H>, method: string): H | undefined {
  const methods = route.methods;
  if (Object.hasOwn(methods, method)) return methods[method];
  return Object.hasOwn(methods, ANY_METHOD) ? methods[ANY_METHOD] : undefined;
}

const SEGMENT_PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
// Characters hono gives a meaning in a route path; a literal segment of ours must not hold them.
const HONO_SYNTAX = /[:*{}?]/;

/** The template in hono's syntax (`/a/{id}` → `/a/:id`), refusing anything else of hono's. */
function honoPath(template: string): string {
  if (!template.startsWith('/')) {
    throw new SpecError(`A route path must start with "/", but "${template}" does not.`, {
      code: 'http/bad-route',
    });
  }
  return template
    .split('/')
    .map((segment) => {
      const param = SEGMENT_PARAM.exec(segment);
      if (param) return `:${param[1]}`;
      if (HONO_SYNTAX.test(segment)) {
        throw new SpecError(
          `The route "${template}" has a segment "${segment}" that is neither literal text nor a whole {name}.`,
          { code: 'http/bad-route' },
        );
      }
      return segment;
    })
    .join('/');
}

/**
 * A route table for an HTTP service: `find` and `match` give the route for a
 * request path, with its `{name}` parameters, and tell a path no route has
 * (404) from a method the route lacks (405, with the methods for `Allow`).
 * Paths match exactly: case matters, and a trailing slash makes another
 * path (services that ignore one strip it first). When two templates match
 * a path, the one declared first wins.
 *
 * Throws `SpecError` (`http/bad-route`) for a template that does not start
 * with `/` or has a segment that is neither literal nor a whole `{name}`,
 * and for a path declared twice.
 *
 * @example
 * const table = createRouteTable([{ path: '/traits/{name}', methods: { GET: show, PUT: put } }]);
 * table.match('GET', '/traits/CUSTOM_X'); // { status: 200, handler: show, params: { name: 'CUSTOM_X' }, … }
 * table.match('POST', '/traits/CUSTOM_X'); // { status: 405, route: { allow: ['GET', 'PUT'], … }, … }
 */
export function createRouteTable<H>(definitions: readonly RouteDefinition<H>[]): RouteTable<H> {
  const router: Router<number> = new SmartRouter<number>({
    routers: [new RegExpRouter(), new TrieRouter()],
  });
  const routes: TableRoute<H>[] = [];
  const seen = new Set<string>();
  for (const definition of definitions) {
    const path = honoPath(definition.path);
    if (seen.has(path)) {
      throw new SpecError(`The route "${definition.path}" is declared twice.`, { code: 'http/bad-route' });
    }
    seen.add(path);
    router.add(METHOD_NAME_ALL, path, routes.length);
    routes.push({
      path: definition.path,
      methods: definition.methods,
      allow: Object.keys(definition.methods).filter((m) => m !== ANY_METHOD),
    });
  }

  const find = (path: string): PathMatch<H> | undefined => {
    // An empty table never builds a matcher; a path of none is never a route.
    if (!routes.length || path === '') return undefined;
    const result: Result<number> = router.match(METHOD_NAME_ALL, path);
    const [handlers, stash] = result;
    let first: [number, Record<string, string | number>] | undefined;
    for (const entry of handlers) {
      if (!first || entry[0] < first[0]) first = entry;
    }
    if (!first) return undefined;
    const route = routes[first[0]] as TableRoute<H>;
    const params: Record<string, string> = {};
    for (const [name, at] of Object.entries(first[1])) {
      // RegExpRouter answers with indexes into the match, TrieRouter with the values.
      params[name] = (stash ? stash[at as number] : at) as string;
    }
    return { route, params };
  };

  const match = (method: string, path: string): RouteMatch<H> => {
    const found = find(path);
    if (!found) return { status: 404 };
    const handler = routeHandler(found.route, method);
    if (handler === undefined) return { status: 405, route: found.route, params: found.params };
    return { status: 200, route: found.route, params: found.params, handler };
  };

  return { find, match, routes };
}
