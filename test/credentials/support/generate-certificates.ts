import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireServices } from '../../support/services.js';

export interface TestCertificates {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A client certificate from a CA the server does not trust. */
  readonly strangerCert: string;
  readonly strangerKey: string;
}

/**
 * A throwaway CA, a server certificate for 127.0.0.1 and client certificates, made with the
 * system's openssl in a temporary directory that is removed before returning.
 */
export function generateCertificates(): TestCertificates {
  requireServices('openssl');
  const directory = mkdtempSync(join(tmpdir(), 'mcp-mtls-'));
  const path = (name: string) => join(directory, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    const authority = (name: string, subject: string) =>
      openssl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        path(`${name}.key`),
        '-out',
        path(`${name}.crt`),
        '-days',
        '1',
        '-subj',
        subject,
      );
    const issue = (name: string, subject: string, ca: string, extensions: string) => {
      openssl(
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        path(`${name}.key`),
        '-out',
        path(`${name}.csr`),
        '-subj',
        subject,
      );
      writeFileSync(path(`${name}.ext`), extensions);
      openssl(
        'x509',
        '-req',
        '-in',
        path(`${name}.csr`),
        '-CA',
        path(`${ca}.crt`),
        '-CAkey',
        path(`${ca}.key`),
        '-CAcreateserial',
        '-out',
        path(`${name}.crt`),
        '-days',
        '1',
        '-extfile',
        path(`${name}.ext`),
      );
    };
    authority('ca', '/CN=test-ca');
    authority('other-ca', '/CN=other-ca');
    issue('server', '/CN=127.0.0.1', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    issue('client', '/CN=mcp-client', 'ca', 'extendedKeyUsage=clientAuth\n');
    issue('stranger', '/CN=stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');
    const read = (name: string) => readFileSync(path(name), 'utf8');
    return {
      caCert: read('ca.crt'),
      serverCert: read('server.crt'),
      serverKey: read('server.key'),
      clientCert: read('client.crt'),
      clientKey: read('client.key'),
      strangerCert: read('stranger.crt'),
      strangerKey: read('stranger.key'),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
