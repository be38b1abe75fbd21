// forgekit's own `pre-receive` hook: how a push guard's "this ref must move fast-forward only" is enforced when the
// new commit arrives in the pack of the same push (so the guard, which runs on the command list, cannot judge it).
//
// Why a hook, and why this one is not the "user-controlled hooks" the server refuses: the script is written by the
// server into its data directory (never into a repository, never from user input), and enabled for one receive-pack
// at a time with `-c core.hooksPath=<that directory>`, only when a guard listed refs. Repositories are created with an
// empty template and no hooks of their own. git runs `pre-receive` once the pack is in (its objects visible through
// the quarantine environment) and before any ref moves; a refusal refuses the whole push and drops the quarantined
// objects — the same outcome as a guard's refusal, and as Gitea's pre-receive hook. Only the listed refs are judged,
// so other branches of the same push (an unprotected branch's rewrite) are not held to fast-forwards, unlike with
// `receive.denyNonFastForwards`, which applies to every branch of the push.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The environment variable carrying the refs (newline-separated full names) the hook holds to fast-forwards. */
export const FAST_FORWARD_REFS_ENV = 'FORGEKIT_FAST_FORWARD_REFS';

// Ref names never contain whitespace or glob characters (git check-ref-format), so word splitting with globbing off
// reads the list exactly. Creations and deletions are not fast-forward questions (guards judge deletions before).
const SCRIPT = `#!/bin/sh
# Written by forgekit; enabled per push with -c core.hooksPath. Refuses the push when a ref listed in
# $${FAST_FORWARD_REFS_ENV} would move to a commit that does not contain its old one.
set -f
status=0
while read -r old new ref; do
  listed=
  for r in $${FAST_FORWARD_REFS_ENV}; do
    if [ "$r" = "$ref" ]; then listed=1; fi
  done
  [ -n "$listed" ] || continue
  case $old in *[!0]*) ;; *) continue ;; esac
  case $new in *[!0]*) ;; *) continue ;; esac
  if ! git merge-base --is-ancestor "$old" "$new" </dev/null; then
    echo "forgekit: branch \${ref#refs/heads/} is protected: force push is not allowed" >&2
    status=1
  fi
done
exit $status
`;

/** Writes the hook directory (only `pre-receive` in it) and returns its absolute path. */
export async function installFastForwardHook(dataDir: string): Promise<string> {
  const dir = path.resolve(dataDir, 'git-hooks');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, 'pre-receive');
  await writeFile(file, SCRIPT, { mode: 0o755 });
  await chmod(file, 0o755);
  return dir;
}

/** git options and environment for a receive-pack whose listed refs must move fast-forward only. */
export function fastForwardOptions(hooksDir: string, refs: string[]): { config: string[]; env: Record<string, string> } {
  if (refs.length === 0) return { config: [], env: {} };
  return { config: ['-c', `core.hooksPath=${hooksDir}`], env: { [FAST_FORWARD_REFS_ENV]: [...new Set(refs)].join('\n') } };
}
