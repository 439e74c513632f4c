import dns from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher } from 'undici';
import { DomainError } from '../errors';

/**
 * Outbound targets (webhook URLs chosen by API clients, speech callbacks, vendor hosts) could make
 * the service call its own network (cloud metadata, databases, admin ports). Unless private
 * networks are allowed, every address a target resolves to must be public unicast, checked at
 * registration and again for the address actually connected to (so DNS cannot be rebound to a
 * private address in between). The ranges are ipaddr.js's (IANA special-purpose registries), not a
 * list of our own: anything it does not call `unicast` is refused, including the IPv6 forms that
 * carry an IPv4 address (mapped, compatible, SIIT, 6to4, Teredo, NAT64) and the non-public IPv6
 * blocks (discard-only 100::/64, site-local fec0::/10, unique-local fc00::/7, documentation).
 */

/** Readable names of ipaddr.js's ranges, for the refusal message. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (RFC 6598)',
  private: 'private (RFC 1918)',
  reserved: 'reserved (IANA special-purpose)',
  as112: 'AS112 (RFC 7534)',
  amt: 'AMT (RFC 7450)',
  uniqueLocal: 'unique-local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  ipv4Mapped: 'IPv4-mapped or IPv4-compatible',
  rfc6145: 'IPv4-translated (::ffff:0:0:0/96)',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
  discard: 'discard-only (100::/64)',
  benchmarking: 'benchmarking',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'DRIP (2001:30::/28)',
};

/** Which rule forbids an address, or null when it is a public unicast address. */
export function forbiddenAddressRule(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '').split('%')[0];
  if (!ipaddr.isValid(bare) || !net.isIP(bare)) return 'not an IP address';
  const addr = ipaddr.parse(bare);
  let range = addr.range();
  // ::a.b.c.d (IPv4-compatible, deprecated) is all zeros but the last 32 bits; ipaddr.js calls it unicast.
  if (addr.kind() === 'ipv6' && range === 'unicast' && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) range = 'ipv4Mapped';
  if (range === 'unicast') return null;
  const name = RANGE_NAMES[range] ?? range;
  if (addr.kind() === 'ipv6' && ['ipv4Mapped', 'rfc6145', 'rfc6052'].includes(range)) {
    const parts = (addr as ipaddr.IPv6).parts;
    const v4 = `${parts[6] >> 8}.${parts[6] & 0xff}.${parts[7] >> 8}.${parts[7] & 0xff}`;
    return `${name}, carrying ${v4}`;
  }
  return name;
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidUrl(`url scheme must be http or https, not ${url.protocol.replace(':', '')}`, 'scheme', raw);
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
  return (
    hostname: string,
    options: { all?: boolean } | undefined,
    callback: (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ) => {
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

/**
 * A dispatcher for `fetch` whose connections go through the guarded lookup: a host name is judged by
 * the address it resolves to when connecting. A literal address in the URL is not looked up; callers
 * judge it themselves (assertWebhookUrl), or trust it as configured (vendor base URLs, see
 * docs/decisions.md "Outbound calls judge the connected address").
 */
export function guardedDispatcher(policy: UrlPolicy): Dispatcher {
  return new Agent({ connect: { lookup: guardedLookup(policy) } as never });
}
