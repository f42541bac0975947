import { healthRoute, openApiRoute, readyRoute } from './health-routes.js';
import { metricsRoute } from './metrics-route.js';
import { addPinRoute, listPinsRoute, removePinRoute, updatePinRoute } from './pin-routes.js';
import { provideRoute } from './provide-route.js';
import {
  completeRoute,
  getPromptRoute,
  listPromptsRoute,
  listResourcesRoute,
  listServersRoute,
  listTemplatesRoute,
  readResourceRoute,
} from './server-routes.js';
import type { ServiceRoute } from './service-route.js';
import { tracesRoute } from './traces-route.js';

/** Every route of `mcp-context serve`, in the order the OpenAPI document lists them. */
export const serviceRoutes: readonly ServiceRoute[] = [
  provideRoute,
  listPinsRoute,
  addPinRoute,
  updatePinRoute,
  removePinRoute,
  listServersRoute,
  listResourcesRoute,
  listTemplatesRoute,
  readResourceRoute,
  listPromptsRoute,
  getPromptRoute,
  completeRoute,
  tracesRoute,
  healthRoute,
  readyRoute,
  metricsRoute,
  openApiRoute,
];
