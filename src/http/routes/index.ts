/**
 * Every route module, registered in this order. Each capability area adds one line.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';
import { coreRoutes } from './core.js';

export type RouteModule = (app: FastifyInstance, services: Services) => Promise<void>;

export const routeModules: RouteModule[] = [
  coreRoutes,
];
