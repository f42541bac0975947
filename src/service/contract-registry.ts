import { z } from 'zod';

/** What the OpenAPI document says of a named schema. */
export interface ContractMeta {
  /** Its name under `#/components/schemas/`. */
  readonly id: string;
  readonly description?: string;
}

/**
 * The service's named schemas: the OpenAPI document's components are generated from this
 * registry (not zod's global one, which any other package may fill).
 */
export const contractRegistry = z.registry<ContractMeta>();

/** Registers a schema under its component name and returns it. */
export function named<Schema extends z.ZodType>(schema: Schema, meta: ContractMeta): Schema {
  contractRegistry.add(schema, meta);
  return schema;
}
