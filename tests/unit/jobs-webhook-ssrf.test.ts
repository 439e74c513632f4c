import { assertWebhookUrl, forbiddenAddressRule } from '../../domain/webhooks/ssrf';

test.each([
  ['127.0.0.1', 'loopback'],
  ['10.0.0.1', 'private (RFC 1918)'],
  ['172.31.255.255', 'private (RFC 1918)'],
  ['192.168.1.1', 'private (RFC 1918)'],
  ['100.64.1.1', 'carrier-grade NAT (RFC 6598)'],
  ['169.254.169.254', 'link-local'],
  ['0.0.0.0', 'this-network'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private (RFC 1918)'],
  ['fd00::1', 'unique-local (fc00::/7)'],
  ['fe80::1', 'link-local (fe80::/10)'],
  ['64:ff9b::a00:1', 'private (RFC 1918)'],
])('%s is refused as %s', (ip, rule) => {
  expect(forbiddenAddressRule(ip)).toBe(rule);
});

test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '::ffff:8.8.8.8', '2606:4700::1111'])('%s is public', (ip) => {
  expect(forbiddenAddressRule(ip)).toBeNull();
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
