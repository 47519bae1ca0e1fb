import { chmod, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedFolder, startEmbedded } from '../../src/db/embedded.ts';
import { StartupError } from '../../src/core/errors.ts';

// Issue 14, finding 4: started as root (containers, CI) in a folder the `postgres` system user
// cannot enter (a home folder of mode 0700, a `mktemp -d` folder), `npm start` died with an
// unhandled `spawn …/initdb EACCES` stack. It now stops first, with one sentence saying what to
// change.

let root: string;
beforeAll(async () => { root = await mkdtemp(path.join(tmpdir(), 'embedded-root-')); });
afterAll(async () => rm(root, { recursive: true, force: true }));

describe('the folders on the way to the cluster', () => {
  const someone = { uid: 4242, gid: 4242 };

  it('finds the first folder another user cannot pass through', async () => {
    const open = path.join(root, 'open');
    const shut = path.join(open, 'shut');
    await mkdir(path.join(shut, 'inside'), { recursive: true });
    await chmod(root, 0o755);
    await chmod(open, 0o711);
    await chmod(shut, 0o700);
    expect(await blockedFolder(path.join(shut, 'inside'), someone)).toEqual({ folder: shut, mode: 0o700 });
    expect(await blockedFolder(path.join(open, 'not-made-yet'), someone)).toBeUndefined();
    await chmod(shut, 0o701);
    expect(await blockedFolder(path.join(shut, 'inside'), someone)).toBeUndefined();
  });

  it('counts the owner\'s and the group\'s bits for that user, and only "others" for a user not made yet', async () => {
    const mine = path.join(root, 'mine');
    await mkdir(mine);
    await chmod(mine, 0o750);
    const me = { uid: userInfo().uid, gid: userInfo().gid };
    expect(await blockedFolder(mine, me)).toBeUndefined();
    expect(await blockedFolder(mine, { uid: 4242, gid: me.gid })).toBeUndefined();
    expect(await blockedFolder(mine, { uid: 4242, gid: 4242 })).toEqual({ folder: mine, mode: 0o750 });
    expect(await blockedFolder(mine, undefined)).toEqual({ folder: mine, mode: 0o750 });
  });
});

describe.runIf(userInfo().uid === 0)('a first start as root in a private folder', () => {
  it('stops before spawning anything, with one sentence naming the folder and what to change', async () => {
    const home = path.join(root, 'home');
    await mkdir(home, { mode: 0o700 });
    await chmod(home, 0o700);
    const dataDir = path.join(home, '.data');
    const failure = await startEmbedded({ dataDir }).then(() => undefined, (error: unknown) => error);
    expect(failure).toBeInstanceOf(StartupError);
    const message = (failure as Error).message;
    expect(message).toBe(`Running as root, the embedded PostgreSQL runs as the system user "postgres", which cannot enter ${home} (mode 700): `
      + `run as another user, let others pass through that folder (chmod o+x ${home}), or set DATABASE_URL to a PostgreSQL server.`);
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  });

  it('starts once that folder lets others pass; DATA_DIR is then 0711, as the configuration reference says, and its files 0600', async () => {
    const home = path.join(root, 'home-open');
    await mkdir(home);
    await chmod(home, 0o701);
    const dataDir = path.join(home, '.data');
    const cluster = await startEmbedded({ dataDir });
    await cluster.stop();
    expect(cluster.owned).toBe(true);
    // `postgres` passes through to pg/ (its own, 0700) and can list or read nothing else.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o711);
    for (const file of ['pg-password', 'pg-port']) expect((await stat(path.join(dataDir, file))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, 'pg'))).mode & 0o777).toBe(0o700);
  }, 60_000);
});

it('the configuration reference states DATA_DIR\'s real mode and why: 0711 as root, for the cluster\'s own user to pass through; 0700 otherwise', async () => {
  const reference = await readFile(path.join(import.meta.dirname, '../../docs/reference/configuration.md'), 'utf8');
  const row = reference.split('\n').find((line) => line.startsWith('| `DATA_DIR` |'));
  expect(row).toContain('Made with mode 0700; run as root with the embedded PostgreSQL it is 0711');
  expect(row).toContain('so the cluster\'s own `postgres` user can pass through to `pg/`');
});
