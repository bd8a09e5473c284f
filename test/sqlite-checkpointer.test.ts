/**
 * SQLite's WAL checkpoints run on a worker thread (src/db/sqlite-checkpointer.ts): the pages a
 * commit appends to the log reach the database file without the committing connection copying
 * them (its own automatic checkpoint waits for FALLBACK_PAGES), and closing the database stops
 * the worker. Real files, the real worker, a real clock; SQLite only (PostgreSQL has no WAL of
 * ours to checkpoint).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../src/db/database.js';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_PAGES, startCheckpointer } from '../src/db/sqlite-checkpointer.js';
import { eventually } from './helpers/eventually.js';

/** Rows of about one page each: enough to see in the file's size, far below the fallback. */
const ROWS = 500;
const ROW_BYTES = 4000;

describe('WAL checkpoints on a worker thread [sqlite]', () => {
  let dir: string;
  let db: Db | undefined;
  let file: string;
  const size = () => fs.statSync(file).size;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkpointer-'));
    file = path.join(dir, 'parley.sqlite');
    db = await openDatabase({ dataDir: dir });
    await sql`CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`.execute(db.kysely);
  });
  after(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file while the connection that wrote them does nothing', async () => {
    assert.ok(ROWS < FALLBACK_PAGES / 10, 'the writes stay far below the main connection’s own checkpoint');
    const before = size();
    await db!.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < ROWS; i++) await sql`INSERT INTO filler (body) VALUES (${Buffer.alloc(ROW_BYTES, i % 251)})`.execute(trx);
    });
    // The commit only appended to the log: the file has not grown yet (the worker's next tick).
    const grownBy = ROWS * ROW_BYTES * 0.9;
    await eventually(`the database file grew by ${grownBy} bytes`, async () => size() - before >= grownBy, 20 * CHECKPOINT_INTERVAL_MS);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM filler`.execute(db!.kysely);
    assert.equal(rows[0].n, ROWS);
  });

  it('stops with the database: after close() nothing copies another connection’s writes', async () => {
    await db!.close();
    db = undefined;
    // A connection of our own that never checkpoints by itself.
    const raw = new SQLite(file);
    try {
      raw.pragma('wal_autocheckpoint = 0');
      const before = size();
      const insert = raw.prepare('INSERT INTO filler (body) VALUES (?)');
      raw.transaction(() => {
        for (let i = 0; i < ROWS; i++) insert.run(Buffer.alloc(ROW_BYTES, i % 251));
      })();
      assert.ok(fs.statSync(`${file}-wal`).size >= ROWS * ROW_BYTES, 'the writes are in the log');
      await new Promise((r) => setTimeout(r, 5 * CHECKPOINT_INTERVAL_MS));
      assert.equal(size(), before, 'no worker copied the log after close()');
    } finally {
      raw.close();
    }
  });

  it('tells of a checkpoint that fails once until it succeeds again, and of a worker that could not start', async () => {
    const main = new SQLite(':memory:');
    const garbage = path.join(dir, 'not-a-database');
    fs.writeFileSync(garbage, Buffer.alloc(8192, 7));
    const heard: string[] = [];
    const failing = startCheckpointer(main, garbage, (m) => heard.push(m));
    try {
      await eventually('the failing checkpoint was reported', async () => heard.length > 0, 50 * CHECKPOINT_INTERVAL_MS);
      // Several more ticks fail the same way: still one report.
      await new Promise((r) => setTimeout(r, 5 * CHECKPOINT_INTERVAL_MS));
      assert.equal(heard.length, 1, heard.join(' | '));
      assert.match(heard[0], /WAL checkpoint failed .*not a database/);
    } finally {
      await failing.close();
    }
    const stopped: string[] = [];
    const missing = startCheckpointer(main, path.join(dir, 'missing.sqlite'), (m) => stopped.push(m));
    try {
      await eventually('the worker that could not open the file was reported', async () => stopped.length > 0, 50 * CHECKPOINT_INTERVAL_MS);
      assert.match(stopped[0], /checkpoint worker stopped/);
    } finally {
      await missing.close();
      main.close();
    }
  });
});
