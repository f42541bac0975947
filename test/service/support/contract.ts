import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { buildOpenApiDocument } from '../../../src/service/build-openapi-document.js';
import { serviceRoutes } from '../../../src/service/service-routes.js';

/** The document as the service serves it. */
export const openApiDocument = buildOpenApiDocument(serviceRoutes, { version: '1.0.0' }) as unknown as {
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by their documented shape
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, any> }>>;
  components: { schemas: Record<string, object> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
// The components under the document's own name, so their `#/components/schemas/…` references resolve.
ajv.addSchema({ $id: 'openapi.json', components: openApiDocument.components });

/** The JSON schema the document gives a response of an operation, or undefined. */
export function responseSchema(operationId: string, status: number): object | undefined {
  for (const operations of Object.values(openApiDocument.paths)) {
    for (const operation of Object.values(operations)) {
      if (operation.operationId !== operationId) continue;
      const content = operation.responses[String(status)]?.content as
        | Record<string, { schema?: object }>
        | undefined;
      return content ? Object.values(content)[0]?.schema : undefined;
    }
  }
  return undefined;
}

/** Checks a body against the document's schema for that operation and status (so the document says what is sent). */
export function expectConforms(operationId: string, status: number, body: unknown): void {
  const schema = responseSchema(operationId, status);
  expect(schema, `${operationId} documents no ${status} response`).toBeDefined();
  const validate = ajv.compile({
    $id: `check-${operationId}-${status}-${Math.random()}`,
    ...rebase(schema as object),
  });
  const valid = validate(body);
  expect(validate.errors ?? [], JSON.stringify(body).slice(0, 2000)).toEqual([]);
  expect(valid).toBe(true);
}

/** References inside a response schema point into the document: rebase them onto its $id. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
}
