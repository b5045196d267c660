// Build output that several processes started from one checkout can share: a build
// runs only when its sources changed, into a fresh directory of its own, and `out`
// (a symlink) is switched to it with one rename, so a process never sees a half
// written or deleted tree. Used by scripts/build.mjs (server, CLI) and reusable for
// any other build output (`buildIfStale({sources, out, build})`).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Builds kept beside the current one: processes started earlier may still load lazy modules from them. */
const KEEP_PREVIOUS = 3;

/**
 * A fingerprint of the sources: every file's path, size and modification time
 * (a stat per file: a few milliseconds for the whole of src/), plus `extra`.
 */
export function fingerprint(sources, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const source of sources) {
    const stat = fs.statSync(source, { throwIfNoEntry: false });
    if (!stat) {
      hash.update(`missing ${source}\n`);
      continue;
    }
    const files = stat.isDirectory()
      ? fs
          .readdirSync(source, { recursive: true })
          .map((f) => path.join(source, String(f)))
          .sort()
      : [source];
    for (const file of files) {
      const s = fs.statSync(file, { throwIfNoEntry: false });
      if (s?.isFile()) hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Makes `out` point at a build of `sources`, building only when none matches them.
 * `build(dir)` writes a complete build into the empty directory `dir`. Builds live in
 * `<out>.builds/<fingerprint>`; `out` is a symlink replaced atomically (rename), so
 * two processes building at once both end with a complete `out`. Returns whether it built.
 */
export async function buildIfStale({ sources, out, build, extra = '' }) {
  const id = fingerprint(sources, extra);
  const builds = `${out}.builds`;
  const target = path.join(builds, id);
  if (fs.existsSync(path.join(target, '.complete')) && readLink(out) === path.relative(path.dirname(out), target)) return false;

  let built = false;
  if (!fs.existsSync(path.join(target, '.complete'))) {
    fs.mkdirSync(builds, { recursive: true });
    const tmp = path.join(builds, `.tmp-${id}-${process.pid}-${randomBytes(4).toString('hex')}`);
    fs.mkdirSync(tmp);
    try {
      await build(tmp);
      fs.writeFileSync(path.join(tmp, '.complete'), '');
      fs.renameSync(tmp, target);
      built = true;
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      // Another process finished the same build first: theirs is as good as ours.
      if (!(err.code === 'ENOTEMPTY' || err.code === 'EEXIST') || !fs.existsSync(path.join(target, '.complete'))) throw err;
    }
  }
  pointAt(out, target);
  prune(builds, target);
  return built;
}

function readLink(p) {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}

/** `out` -> `target` by renaming a new symlink over it (atomic); a plain directory left by an older build is moved aside first. */
function pointAt(out, target) {
  const stat = fs.lstatSync(out, { throwIfNoEntry: false });
  if (stat && !stat.isSymbolicLink()) {
    const aside = `${out}.old-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      fs.renameSync(out, aside);
      fs.rmSync(aside, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'ENOENT') throw err; // another process moved it first
    }
  }
  const link = `${out}.link-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.symlinkSync(path.relative(path.dirname(out), target), link, 'junction');
  fs.renameSync(link, out);
}

/** Removes all but the newest KEEP_PREVIOUS older builds, and temporary directories over an hour old (a build that died). */
function prune(builds, current) {
  const entries = fs
    .readdirSync(builds)
    .map((name) => ({ name, full: path.join(builds, name), mtime: fs.statSync(path.join(builds, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .filter((e) => e.full !== current);
  const hourAgo = Date.now() - 3_600_000;
  const old = entries.filter((e) => !e.name.startsWith('.tmp-')).sort((a, b) => b.mtime - a.mtime);
  for (const e of [...old.slice(KEEP_PREVIOUS), ...entries.filter((e) => e.name.startsWith('.tmp-') && e.mtime < hourAgo)]) {
    fs.rmSync(e.full, { recursive: true, force: true });
  }
}
