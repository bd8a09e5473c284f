/**
 * Runs `parley` commands for tests: `runCli` in this process (fast: the command module tree is
 * already loaded; the command opens its own database connection exactly as the real binary
 * does), `spawnCli` as a real process (slow: about a second of CPU per run). Both return once
 * the test server on the same database has heard what the command wrote (servers-by-schema.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildProgram, CommandError } from '../../src/cli/index.js';
import { SettingsError } from '../../src/settings.js';
import { serverCaughtUp } from './servers-by-schema.js';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const MAIN = path.resolve('src/main.ts');

/** `parley ...args` in this process with `env` set, capturing what it prints (as src/main.ts would). */
export async function runCli(env: Record<string, string>, args: string[]): Promise<Run> {
  const saved = { ...process.env };
  const log = console.log;
  const error = console.error;
  let stdout = '';
  let stderr = '';
  Object.assign(process.env, env);
  console.log = (...a: unknown[]) => void (stdout += a.join(' ') + '\n');
  console.error = (...a: unknown[]) => void (stderr += a.join(' ') + '\n');
  try {
    const program = buildProgram();
    for (const c of [program, ...program.commands]) {
      c.exitOverride();
      c.configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
    }
    await program.parseAsync(args, { from: 'user' });
    await serverCaughtUp(env);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { exitCode?: number; message?: string; code?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) return { code: e.exitCode ?? 1, stdout, stderr };
    if (!(err instanceof CommandError) && !(err instanceof SettingsError)) stderr += `(unexpected) `;
    stderr += `error: ${e.message}\n`;
    return { code: 1, stdout, stderr };
  } finally {
    console.log = log;
    console.error = error;
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/**
 * A clean refusal: exit code 1 and stderr starting `error: ` — not `(unexpected) error: `, which
 * runCli prints for a crash — and matching `pattern` when given. `what` names the case.
 */
export function expectRefusal(r: Run, pattern?: RegExp, what?: string): void {
  const why = `${what ? what + ': ' : ''}${r.stdout}${r.stderr}`;
  assert.equal(r.code, 1, why);
  assert.match(r.stderr, /^error: /, why);
  assert.doesNotMatch(r.stderr, /\(unexpected\)/, why);
  if (pattern) assert.match(r.stderr, pattern, why);
}

/** `parley ...args` as a real process (stdin closed). */
export function spawnCli(env: Record<string, string>, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => void serverCaughtUp(env).then(() => resolve({ code: code ?? -1, stdout, stderr }), reject));
  });
}
