/**
 * Every installed package supports the Node version the project runs on (package.json engines:
 * Node 20.19 and later): `npm ci` on Node 20 prints no EBADENGINE warning. light-my-request
 * 6.8 (through Fastify) pulls cookie 2, which requires Node 22, so package.json pins 6.6.0
 * (cookie 1) through `overrides`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import semver from 'semver';

const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const project = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } };

describe('dependencies', () => {
  it('every locked package accepts the oldest Node the project supports and the Node running the tests', () => {
    const oldest = semver.minVersion(project.engines.node)!.version;
    const refused: string[] = [];
    for (const [where, pkg] of Object.entries(lock.packages)) {
      const range = !Array.isArray(pkg.engines) ? pkg.engines?.node : undefined;
      if (!where || !range) continue;
      for (const node of [oldest, process.version]) {
        if (!semver.satisfies(node, range)) refused.push(`${where}@${pkg.version} wants node ${range}, not ${node}`);
      }
    }
    assert.deepEqual(refused, []);
  });
});
