import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { guardedLookup, isPrivateAddress, parseWebhookUrl, privateAddressOf } from './url-guard.ts';

// D17 and WEBHOOK_ALLOW_PRIVATE_URLS: which addresses a webhook may never reach.

describe('url guard', () => {
  test('loopback, private, link-local, unspecified and ULA addresses, v4 and v6, are private', () => {
    const privateOnes = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'febf::1',
      'fc00::1',
      'fd12:3456:789a::1',
      'ff02::1',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '::ffff:10.1.2.3',
      '::ffff:169.254.169.254',
      '64:ff9b::a00:1', // NAT64 of 10.0.0.1
      '::127.0.0.1', // IPv4-compatible
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:c0a8:101::', // 6to4 of 192.168.1.1
      'fe80::1%eth0',
    ];
    for (const ip of privateOnes) assert.equal(isPrivateAddress(ip), true, ip);
  });

  test('public addresses are not', () => {
    for (const ip of [
      '8.8.8.8',
      '93.184.215.14',
      '172.32.0.1',
      '172.15.255.255',
      '192.169.0.1',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      assert.equal(isPrivateAddress(ip), false, ip);
    }
  });

  test('only absolute http(s) URLs parse', () => {
    for (const ok of ['http://a.example', 'https://a.example:8443/x?y#z', 'http://[::1]:80/', 'HTTPS://A.EXAMPLE/']) assert.ok(parseWebhookUrl(ok), ok);
    for (const bad of [
      '',
      '/x',
      'a.example/x',
      'ftp://a.example/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'mailto:a@b.c',
      'http://',
      'data:text/plain,x',
    ]) {
      assert.equal(parseWebhookUrl(bad), null, bad);
    }
  });

  test('names: localhost and its subdomains are loopback whatever DNS says', async () => {
    for (const u of ['http://localhost/', 'http://LOCALHOST./', 'http://api.localhost:8080/']) assert.equal(await privateAddressOf(new URL(u)), '127.0.0.1', u);
    for (const name of ['localhost', 'x.localhost']) {
      const err = await new Promise<Error | null>((resolve) => guardedLookup(name, {}, (e) => resolve(e)));
      assert.match(String(err), /private address/);
    }
  });

  test('the connect-time lookup answers in both callback forms', async () => {
    // An address literal resolves to itself without DNS: a public one passes in both forms.
    const one = await new Promise<unknown[]>((resolve) => guardedLookup('8.8.8.8', {}, (...a) => resolve(a)));
    assert.deepEqual(one, [null, '8.8.8.8', 4]);
    const all = await new Promise<unknown[]>((resolve) => guardedLookup('8.8.8.8', { all: true }, (...a) => resolve(a)));
    assert.deepEqual(all, [null, [{ address: '8.8.8.8', family: 4 }]]);
    const refused = await new Promise<unknown[]>((resolve) => guardedLookup('10.1.1.1', { all: true }, (...a) => resolve(a)));
    assert.match(String(refused[0]), /10\.1\.1\.1 is a private address/);
  });
});
