/**
 * The example deployment files the docs point at (contrib/): the systemd unit starts the real
 * command with settings Parley accepts, and the nginx example forwards what Parley reads and waits
 * longer than the longest long-poll.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CHAT_MAX_TIMEOUT } from '../src/domain/chat.js';
import { loadSettings } from '../src/settings.js';

const unit = fs.readFileSync('contrib/systemd/parley.service', 'utf8');
const nginx = fs.readFileSync('contrib/nginx/parley.conf', 'utf8');
const settingsSource = fs.readFileSync('src/settings.ts', 'utf8');
const operators = fs.readFileSync('docs/operators.md', 'utf8');

/** The unit's active `Environment=KEY=value` lines. */
function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) env[m[1]] = m[2];
  return env;
}

describe('contrib/: the systemd unit and the nginx example', () => {
  it('the unit runs bin/parley.js serve with settings Parley reads and accepts', () => {
    assert.match(unit, /^ExecStart=\/usr\/bin\/node \/opt\/parley\/bin\/parley\.js serve$/m);
    assert.ok(fs.existsSync('bin/parley.js'));
    const env = unitEnvironment();
    assert.ok(Object.keys(env).length >= 5, unit);
    for (const key of Object.keys(env)) {
      if (key === 'NODE_ENV') continue;
      assert.ok(settingsSource.includes(`'${key}'`) || settingsSource.includes(`env.${key}`), `${key} is a setting src/settings.ts reads`);
    }
    const settings = loadSettings({ ...env, DATA_DIR: env.DATA_DIR });
    assert.equal(settings.port, Number(env.PORT));
    assert.equal(settings.host, '127.0.0.1');
  });

  it('the nginx example proxies to the unit, forwards what TRUSTED_PROXIES reads and outwaits every long-poll', () => {
    const env = unitEnvironment();
    assert.match(nginx, new RegExp(`proxy_pass http://127\\.0\\.0\\.1:${env.PORT};`));
    assert.match(nginx, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    assert.match(nginx, /proxy_set_header X-Forwarded-Proto \$scheme;/);
    assert.ok(env.TRUSTED_PROXIES.split(',').includes('127.0.0.1'), 'the proxy on loopback is trusted');
    const timeout = Number(/proxy_read_timeout (\d+)s;/.exec(nginx)?.[1]);
    assert.ok(timeout > CHAT_MAX_TIMEOUT, `proxy_read_timeout ${timeout}s outlasts a ${CHAT_MAX_TIMEOUT}s chat long-poll`);
    assert.ok(timeout > loadSettings({}).signalingPollSeconds);
  });

  it('docs/operators.md points at both files', () => {
    assert.match(operators, /contrib\/systemd\/parley\.service/);
    assert.match(operators, /contrib\/nginx\/parley\.conf/);
  });
});
