import type { HttpMethod, RouteSpec } from '../../rest-adapter/route';

/** A documented REST route a request asks for, with its path parameters decoded. */
export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

/**
 * What the route table says of a request: its route, or the methods its path takes (a 405), or
 * nothing (not a documented path). One shape with a field left undefined, read as `.match` and
 * `.allowed`: the request front asks it of every request, and an `in` test on it was one of the
 * slowest property reads of the front (V8's generic lookup).
 */
export type RouteLookup = { match: RouteMatch; allowed: undefined } | { match: undefined; allowed: string[] } | undefined;

interface Template {
  /** Lower-cased literal segments; null where a parameter stands. */
  segments: (string | null)[];
  params: string[];
  route: RouteSpec;
}

export const NOT_KEPT = Symbol('not kept');
/** Buckets of RecentPaths, and the most paths one bucket keeps (the oldest goes first). */
const BUCKETS = 1024;
const BUCKET_MAX = 8;

/**
 * Values kept by path, found without hashing the path. The path is a new string on every request,
 * and a Map hashes every character of a string it has not seen before looking it up (~900 CPU
 * instructions a request for the two lookups, under callgrind). Here a path's bucket is chosen by its
 * length and three of its characters, and the few paths in it are compared whole. Paths crafted to
 * share a bucket cost their sender misses (the full match), never a long scan: a bucket keeps at most
 * BUCKET_MAX.
 */
export class RecentPaths<V> {
  private buckets: (string | V)[][] = [];

  /** The value kept for `path`, or NOT_KEPT. */
  get(path: string): V | typeof NOT_KEPT {
    const bucket = this.buckets[bucketOf(path)];
    if (bucket !== undefined) for (let i = 0; i < bucket.length; i += 2) if (bucket[i] === path) return bucket[i + 1] as V;
    return NOT_KEPT;
  }

  /** Keeps `value` for `path`; whether the number of paths kept grew (false when the bucket's oldest made room). */
  set(path: string, value: V): boolean {
    const index = bucketOf(path);
    const bucket = (this.buckets[index] ??= []);
    bucket.push(path, value);
    if (bucket.length <= BUCKET_MAX * 2) return true;
    bucket.splice(0, 2);
    return false;
  }

  clear(): void {
    this.buckets = [];
  }
}

function bucketOf(path: string): number {
  const n = path.length;
  if (n === 0) return 0;
  return (n * 31 + path.charCodeAt(n - 1) * 131 + path.charCodeAt(n >> 1) * 7 + path.charCodeAt(n >> 2)) & (BUCKETS - 1);
}

/**
 * The route express runs for a request, found from the same route table it is mounted from, matched
 * as express matches (literal segments case-insensitively, a parameter takes one non-empty segment,
 * a trailing slash is ignored, the first route in table order wins; a HEAD request runs a GET route
 * unless the path has a HEAD route of its own). The front needs it before express runs: which
 * limiter to charge, whether to read a JSON body, which envelope an edge error uses, and the
 * methods a known path takes.
 */
export function createRouteMatcher(routes: readonly RouteSpec[]) {
  const bySegmentCount = new Map<number, Template[]>();
  for (const route of routes) {
    const parts = route.path.split('/');
    const params: string[] = [];
    const segments = parts.map((p) => {
      const m = /^\{(\w+)\}$/.exec(p);
      if (!m) return p.toLowerCase();
      params.push(m[1]);
      return null;
    });
    if (segments.some((s) => s !== null && s.includes('{'))) throw new Error(`route ${route.path}: a parameter must fill its segment`);
    let list = bySegmentCount.get(parts.length);
    if (!list) bySegmentCount.set(parts.length, (list = []));
    list.push({ segments, params, route });
  }

  const fits = (t: Template, parts: string[]) => {
    for (let i = 0; i < parts.length; i++) {
      const s = t.segments[i];
      if (s === null ? parts[i].length === 0 : s !== parts[i] && s !== parts[i].toLowerCase()) return false;
    }
    return true;
  };
  const handles = (route: RouteSpec, method: string, path: Template[]) => {
    if (route.method === method) return true;
    // HEAD runs a GET route when no route of the path declares HEAD itself.
    return method === 'head' && route.method === 'get' && !path.some((t) => t.route.method === 'head');
  };

  // What each recent method and path looked up to: clients ask for the same paths over and over (a
  // hot audio file, a list page), and the answer of a path never changes. Bounded in entries and path
  // length; shared answers are frozen. Kept per method (node's parser knows a fixed set of them).
  const recent = new Map<string, RecentPaths<RouteLookup>>();
  const RECENT_MAX = 2000;
  const RECENT_PATH_MAX = 256;
  let recentEntries = 0;

  return function lookup(method: string, pathname: string): RouteLookup {
    if (pathname.length > RECENT_PATH_MAX) return match(method, pathname);
    let byPath = recent.get(method);
    if (byPath === undefined) recent.set(method, (byPath = new RecentPaths()));
    const found = byPath.get(pathname);
    if (found !== NOT_KEPT) return found;
    const looked = match(method, pathname);
    if (recentEntries >= RECENT_MAX) {
      for (const paths of recent.values()) paths.clear();
      recentEntries = 0;
    }
    if (byPath.set(pathname, looked)) recentEntries++;
    return looked;
  };

  function match(method: string, pathname: string): RouteLookup {
    const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    const parts = path.split('/');
    const candidates = bySegmentCount.get(parts.length);
    if (!candidates) return undefined;
    const sameTemplate = candidates.filter((t) => fits(t, parts));
    if (!sameTemplate.length) return undefined;
    const m = method.toLowerCase() as HttpMethod;
    const found = sameTemplate.find((t) => handles(t.route, m, sameTemplate));
    if (!found) {
      const allowed = new Set(sameTemplate.map((t) => t.route.method.toUpperCase()));
      if (allowed.has('GET')) allowed.add('HEAD');
      allowed.add('OPTIONS');
      return Object.freeze({ match: undefined, allowed: Object.freeze([...allowed]) as string[] });
    }
    const params: Record<string, string> = {};
    let p = 0;
    try {
      for (let i = 0; i < parts.length; i++) if (found.segments[i] === null) params[found.params[p++]] = decodeURIComponent(parts[i]);
    } catch {
      return undefined; // an undecodable parameter: express answers it
    }
    return Object.freeze({ match: Object.freeze({ route: found.route, params: Object.freeze(params) }), allowed: undefined });
  }
}

export type RouteMatcher = ReturnType<typeof createRouteMatcher>;
