// How tests start node processes (operator commands, servers, crash children, the bench harness).
// tap's @tapjs/processinfo wraps child_process in the test process and puts its `--import` loader into every node
// child's NODE_OPTIONS, whatever environment is passed: it tracks processes for coverage (off here) and doubled each
// child's start-up (an operator command: 1.5 s → 3.1 s). So children start through `env -u NODE_OPTIONS`, which
// execs node without it (same pid: signals reach node itself).
export const ENV_BIN = '/usr/bin/env';

/** The command and arguments that run `node <args>` without tap's loader. */
export function nodeCommand(args: readonly string[]): [string, string[]] {
  return [ENV_BIN, ['-u', 'NODE_OPTIONS', process.execPath, ...args]];
}
