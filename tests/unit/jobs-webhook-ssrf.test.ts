import { assertWebhookUrl, forbiddenAddressRule, guardedLookup } from '../../domain/webhooks/ssrf';

test.each([
  ['127.0.0.1', 'loopback'],
  ['10.0.0.1', 'private (RFC 1918)'],
  ['172.31.255.255', 'private (RFC 1918)'],
  ['192.168.1.1', 'private (RFC 1918)'],
  ['100.64.1.1', 'carrier-grade NAT (RFC 6598)'],
  ['169.254.169.254', 'link-local'],
  ['0.0.0.0', 'unspecified'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['::ffff:127.0.0.1', 'IPv4-mapped or IPv4-compatible, carrying 127.0.0.1'],
  ['::ffff:7f00:1', 'IPv4-mapped or IPv4-compatible, carrying 127.0.0.1'],
  ['::ffff:10.1.2.3', 'IPv4-mapped or IPv4-compatible, carrying 10.1.2.3'],
  // Issue 37: the forms the old hand-written list let through.
  ['::ffff:0:127.0.0.1', 'IPv4-translated (::ffff:0:0:0/96), carrying 127.0.0.1'],
  ['::127.0.0.1', 'IPv4-mapped or IPv4-compatible, carrying 127.0.0.1'],
  ['2002:7f00:1::', '6to4 (2002::/16)'],
  ['2001::7f00:1', 'Teredo (2001::/32)'],
  ['100::1', 'discard-only (100::/64)'],
  ['fec0::1', 'site-local (fec0::/10)'],
  ['64:ff9b::a00:1', 'NAT64 (64:ff9b::/96), carrying 10.0.0.1'],
  ['64:ff9b::808:808', 'NAT64 (64:ff9b::/96), carrying 8.8.8.8'],
  ['fd00::1', 'unique-local (fc00::/7)'],
  ['fc00::1', 'unique-local (fc00::/7)'],
  ['fe80::1', 'link-local'],
  ['2001:db8::1', 'reserved (IANA special-purpose)'],
  ['192.0.2.1', 'reserved (IANA special-purpose)'],
])('%s is refused as %s', (ip, rule) => {
  expect(forbiddenAddressRule(ip)).toBe(rule);
});

test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001:80b::200e'])('%s is public', (ip) => {
  expect(forbiddenAddressRule(ip)).toBeNull();
});

test('the URL forms of the embedded-IPv4 and non-public IPv6 addresses are refused at registration', async () => {
  const policy = { allowPrivateNetworks: false };
  for (const host of ['[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[2001::7f00:1]', '[100::1]', '[fec0::1]', '[64:ff9b::7f00:1]', '[::127.0.0.1]']) {
    await expect(assertWebhookUrl(`http://${host}:8080/hook`, policy)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { rule: 'private-network' },
    });
  }
});

test('the guarded lookup judges the address a name resolves to when connecting (DNS rebinding)', async () => {
  const lookup = guardedLookup({ allowPrivateNetworks: false });
  const outcome = await new Promise<{ err: any; address: unknown }>((resolve) => lookup('localhost', {}, (err, address) => resolve({ err, address })));
  expect(outcome.err).toMatchObject({ code: 'EPRIVATEADDRESS' });
  const allowed = await new Promise<{ err: any; address: unknown }>((resolve) =>
    guardedLookup({ allowPrivateNetworks: true })('localhost', {}, (err, address) => resolve({ err, address })),
  );
  expect(allowed.err).toBeNull();
});

test('registration checks scheme, credentials and every resolved address', async () => {
  const policy = { allowPrivateNetworks: false, resolve: async (h: string) => (h === 'mixed.example' ? ['93.184.216.34', '10.0.0.5'] : ['93.184.216.34']) };
  await expect(assertWebhookUrl('ftp://example.com/x', policy)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { rule: 'scheme' } });
  await expect(assertWebhookUrl('https://u:p@example.com/x', policy)).rejects.toMatchObject({ details: { rule: 'credentials' } });
  await expect(assertWebhookUrl('http://localhost:8080/', policy)).rejects.toMatchObject({ details: { rule: 'loopback' } });
  await expect(assertWebhookUrl('http://[::1]/', policy)).rejects.toMatchObject({ details: { rule: 'private-network' } });
  await expect(assertWebhookUrl('https://mixed.example/hook', policy)).rejects.toMatchObject({ details: { rule: 'private-network' } });
  await expect(assertWebhookUrl('not a url', policy)).rejects.toMatchObject({ details: { rule: 'url-syntax' } });
  await expect(assertWebhookUrl('https://public.example/hook', policy)).resolves.toBeInstanceOf(URL);
  await expect(assertWebhookUrl('http://127.0.0.1:9/x', { allowPrivateNetworks: true })).resolves.toBeInstanceOf(URL);
});
