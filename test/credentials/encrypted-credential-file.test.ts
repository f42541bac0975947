import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { credentialKeyEnv, generateCredentialKey } from '../../src/credentials/credential-key.js';
import { openCredentialFile, writeCredentialFile } from '../../src/credentials/encrypted-credential-file.js';
import { collectErrorText } from './support/collect-error-text.js';

function temporaryFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-credentials-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, 'credentials.json');
}

const secrets = { 'gitnexus-token': 'tok-3c1f9a7e5b2d4c6f', 'docs-key': 'key-9e8d7c6b5a4f3e2d' };

describe('the encrypted credential file', () => {
  it('round-trips secrets, stores none of them in clear text, and is readable by the owner only', async () => {
    const path = temporaryFile();
    const key = generateCredentialKey();
    await writeCredentialFile(path, secrets, { key });
    const raw = readFileSync(path, 'utf8');
    for (const value of Object.values(secrets)) expect(raw).not.toContain(value);
    expect(raw).not.toContain('gitnexus-token');
    expect(JSON.parse(raw)).toMatchObject({
      format: 'mcp-resource-context/credentials',
      version: 1,
      cipher: 'aes-256-gcm',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const file = await openCredentialFile(path, { key });
    expect(file.names).toEqual(['gitnexus-token', 'docs-key']);
    expect(file.get('gitnexus-token')).toBe(secrets['gitnexus-token']);
    expect(file.get('absent')).toBeUndefined();
  });

  it('takes its key from MCP_CONTEXT_CREDENTIAL_KEY when no key is passed, as hex or base64', async () => {
    const path = temporaryFile();
    const hexKey = Buffer.from(generateCredentialKey(), 'base64').toString('hex');
    const previous = process.env[credentialKeyEnv];
    process.env[credentialKeyEnv] = hexKey;
    onTestFinished(() => {
      if (previous === undefined) delete process.env[credentialKeyEnv];
      else process.env[credentialKeyEnv] = previous;
    });
    await writeCredentialFile(path, secrets);
    expect((await openCredentialFile(path)).get('docs-key')).toBe(secrets['docs-key']);
    expect(
      (await openCredentialFile(path, { key: Buffer.from(hexKey, 'hex').toString('base64') })).names,
    ).toHaveLength(2);
  });

  it.each([
    [
      'a flipped bit in the ciphertext',
      (envelope: Record<string, string>) => ({ ...envelope, data: flipFirstBit(envelope.data) }),
    ],
    [
      'a different IV',
      (envelope: Record<string, string>) => ({ ...envelope, iv: flipFirstBit(envelope.iv) }),
    ],
    [
      'a different tag',
      (envelope: Record<string, string>) => ({ ...envelope, tag: flipFirstBit(envelope.tag) }),
    ],
    [
      'a truncated ciphertext',
      (envelope: Record<string, string>) => ({ ...envelope, data: envelope.data?.slice(0, 8) }),
    ],
  ])('detects tampering (%s): CREDENTIAL_FILE_INVALID, nothing decrypted', async (_name, tamper) => {
    const path = temporaryFile();
    const key = generateCredentialKey();
    await writeCredentialFile(path, secrets, { key });
    writeFileSync(path, JSON.stringify(tamper(JSON.parse(readFileSync(path, 'utf8')))));
    const failure = await openCredentialFile(path, { key }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'CREDENTIAL_FILE_INVALID',
      message: expect.stringContaining('altered'),
    });
  });

  it('refuses an edited header and a wrong key the same way, without saying anything of the key', async () => {
    const path = temporaryFile();
    const key = generateCredentialKey();
    await writeCredentialFile(path, secrets, { key });
    const wrongKey = generateCredentialKey();
    const wrong = await openCredentialFile(path, { key: wrongKey }).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: 'CREDENTIAL_FILE_INVALID' });
    expect(collectErrorText(wrong)).not.toContain(wrongKey);

    writeFileSync(path, readFileSync(path, 'utf8').replace('"version": 1', '"version": 2'));
    await expect(openCredentialFile(path, { key })).rejects.toMatchObject({
      code: 'CREDENTIAL_FILE_INVALID',
    });
  });

  it('rejects a key of the wrong length and a missing key, naming neither value', async () => {
    const path = temporaryFile();
    const shortKey = Buffer.alloc(16, 7).toString('base64');
    const short = await writeCredentialFile(path, secrets, { key: shortKey }).catch(
      (error: unknown) => error,
    );
    expect(short).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'key',
      message: expect.stringContaining('32 bytes'),
    });
    expect(collectErrorText(short)).not.toContain(shortKey);
    await expect(
      writeCredentialFile(path, secrets, { keyEnv: 'MCP_CONTEXT_TEST_UNSET_KEY' }),
    ).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
    });
  });
});

function flipFirstBit(base64: string | undefined): string {
  const bytes = Buffer.from(base64 ?? '', 'base64');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString('base64');
}
