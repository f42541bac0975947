import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { expectConforms, openApiDocument } from './support/contract.js';
import { startTestService } from './support/start-test-service.js';

const committedPath = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/openapi.json');
const generated = `${JSON.stringify(openApiDocument, null, 2)}\n`;

describe('the OpenAPI document', () => {
  it('is the committed docs/openapi.json (regenerate: UPDATE_OPENAPI=1 npx vitest run test/service/openapi-document.test.ts)', () => {
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(committedPath, generated);
    expect(readFileSync(committedPath, 'utf8')).toBe(generated);
  });

  it('is a valid OpenAPI 3.1 document by the specification schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(openApiDocument) as unknown as Record<string, unknown>,
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is not vacuous: the validator refuses a broken document', async () => {
    const broken = structuredClone(openApiDocument) as { paths: Record<string, Record<string, object>> };
    (broken.paths['/v1/provide'] as Record<string, object>).post = { responses: 'none' };
    expect((await new Validator().validate(broken as unknown as Record<string, unknown>)).valid).toBe(false);
  });

  it('has every example response valid against its own schema', () => {
    let examples = 0;
    for (const operations of Object.values(openApiDocument.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const content of Object.values(
            (response.content ?? {}) as Record<string, { example?: unknown }>,
          )) {
            if (content.example === undefined) continue;
            expectConforms(operation.operationId, Number(status), content.example);
            examples++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThanOrEqual(14);
  });

  it('refuses a response that breaks its schema (the example check is not vacuous)', () => {
    expect(() => expectConforms('provide', 200, { blocks: [], trace: { turnId: 1 } })).toThrow();
  });

  it('generates requests from the validating schemas: strict objects, required fields, bounded ids', () => {
    const provide = openApiDocument.components.schemas.ProvideRequest as {
      additionalProperties: boolean;
      required: string[];
      properties: Record<string, { maxLength?: number }>;
    };
    expect(provide.additionalProperties).toBe(false);
    expect(provide.required).toEqual(['pipelineId']);
    expect(provide.properties.pipelineId?.maxLength).toBe(256);
  });

  it('is served at /v1/openapi.json, without a key, as generated', async () => {
    const { request } = await startTestService();
    const response = await request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.json).toEqual(JSON.parse(generated));
  });
});
