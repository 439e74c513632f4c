import dns from 'node:dns/promises';
import net from 'node:net';
import { DomainError } from '../errors';

/**
 * Webhook targets are URLs chosen by API clients; without a guard they could make the service
 * call its own network (cloud metadata, databases, admin ports). Unless private networks are
 * allowed, every address a target resolves to must be public, checked at registration and again
 * when connecting (so DNS cannot be rebound to a private address in between).
 */

const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v4ToInt = (ip: string) => ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;

function blockedV4(ip: string): string | null {
  const n = v4ToInt(ip);
  for (const [base, bits, rule] of BLOCKED_V4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) === (v4ToInt(base) & mask)) return rule;
  }
  return null;
}

/** Expands an IPv6 address to its 8 groups (a dotted IPv4 tail becomes the last two). */
function v6Groups(ip: string): number[] {
  let addr = ip.split('%')[0].toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (v4) {
    const n = v4ToInt(v4[1]);
    addr = addr.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const parse = (part: string) => (part ? part.split(':').map((x) => parseInt(x, 16)) : []);
  if (!addr.includes('::')) return parse(addr);
  const [head, tail] = addr.split('::');
  const h = parse(head);
  const t = parse(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

function blockedV6(ip: string): string | null {
  const g = v6Groups(ip);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses carry an IPv4 target.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    const v4 = `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
    return blockedV4(v4);
  }
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local (fc00::/7)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x64 && g[1] === 0xff9b) return blockedV4(`${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`); // NAT64
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  return null;
}

/** Which rule forbids an address, or null when it is a public address. */
export function forbiddenAddressRule(ip: string): string | null {
  const family = net.isIP(ip);
  if (family === 4) return blockedV4(ip);
  if (family === 6) return blockedV6(ip);
  return 'not an IP address';
}

export interface UrlPolicy {
  allowPrivateNetworks: boolean;
  /** Overridable for tests. */
  resolve?: (host: string) => Promise<string[]>;
}

const defaultResolve = async (host: string) => (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

function invalidUrl(message: string, rule: string, url: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message, {
    fields: [{ field: 'url', message }],
    details: { field: 'url', rule, url: url.slice(0, 200) },
  });
}

/** Checks a webhook URL at registration: http(s), and (unless allowed) only public addresses. */
export async function assertWebhookUrl(raw: string, policy: UrlPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidUrl('url must be an absolute http:// or https:// URL', 'url-syntax', raw);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidUrl(`url scheme must be http or https, not ${url.protocol.replace(':', '')}`, 'scheme', raw);
  if (url.username || url.password) throw invalidUrl('url must not carry credentials; use the webhook secret', 'credentials', raw);
  if (policy.allowPrivateNetworks) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) throw invalidUrl('url must not target loopback (localhost)', 'loopback', raw);
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch {
      throw invalidUrl(`url host '${host.slice(0, 100)}' does not resolve`, 'unresolvable-host', raw);
    }
  }
  if (!addresses.length) throw invalidUrl(`url host '${host.slice(0, 100)}' does not resolve`, 'unresolvable-host', raw);
  for (const address of addresses) {
    const rule = forbiddenAddressRule(address);
    if (rule) throw invalidUrl(`url must target a public address; ${address} is ${rule} (private networks are not allowed)`, 'private-network', raw);
  }
  return url;
}

/**
 * A `lookup` for http.request that refuses private addresses when connecting: the address checked
 * is the address used, so a DNS answer that changes after registration cannot reach inside.
 */
export function guardedLookup(policy: UrlPolicy) {
  return (hostname: string, options: any, callback: (err: NodeJS.ErrnoException | null, address: any, family?: number) => void) => {
    void (async () => {
      try {
        const host = hostname.replace(/^\[|\]$/g, '');
        const all = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await dns.lookup(host, { all: true, verbatim: true });
        if (!policy.allowPrivateNetworks) {
          for (const a of all) {
            const rule = forbiddenAddressRule(a.address);
            if (rule) throw Object.assign(new Error(`refused to connect to ${a.address} (${rule})`), { code: 'EPRIVATEADDRESS' });
          }
        }
        if (!all.length) throw Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
        if (options?.all) callback(null, all);
        else callback(null, all[0].address, all[0].family);
      } catch (err) {
        callback(err as NodeJS.ErrnoException, undefined);
      }
    })();
  };
}
