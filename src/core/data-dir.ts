import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

// DATA_DIR holds the embedded cluster, its password and, without the environment's, the
// encryption key and the deposit wallet's seed and xpub: never for a repository. Whatever its name, it
// carries its own .gitignore ignoring everything in it.

/** Makes the data folder (mode 0700; db/embedded.ts opens it to 0711 as root) with a .gitignore that ignores all of it. */
export async function ensureDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(dir, '.gitignore'), '# The service\'s data and secrets: never committed.\n*\n', { mode: 0o644, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}
