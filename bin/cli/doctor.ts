// `forgekit doctor [--fix] [--json]`: the consistency checks of plugins/consistency.ts on a stopped server's data.
import { parseArgs } from 'node:util';
import { checkConsistency } from '../../plugins/consistency.js';
import { cliConfig, CommandError, enabledCollections, openForge, printJson } from './context.js';
import { createProgress } from './progress.js';

export const DOCTOR_USAGE = `usage:
  forgekit doctor [--fix] [--json]
Checks counters against rows, repository records against git directories, rows that refer to deleted records, and
index integrity; --fix repairs what can be repaired. Exit code 0: consistent (or everything repaired), 1: problems left.`;

export async function doctor(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { fix: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
  const config = cliConfig();
  const collections = await enabledCollections(config);
  const forge = await openForge();
  let report;
  try {
    const progress = createProgress('doctor', process.stderr, values.json === true && !process.stderr.isTTY);
    report = await checkConsistency({ store: forge.store, dataDir: config.dataDir, collections, fix: values.fix, progress: (d, t, s) => progress.update(d, t, s) });
    progress.done();
  } finally {
    await forge.close();
  }
  const left = report.problems.filter((p) => !p.fixed);
  if (values.json) {
    printJson({ ok: left.length === 0, checked: report.checked, problems: report.problems });
  } else {
    for (const p of report.problems) {
      const what = p.fixed ? `fixed: ${p.repair}` : p.repair ? `fix with --fix: ${p.repair}` : 'needs a person';
      process.stdout.write(`[${p.check}] ${p.message} (${what})\n`);
    }
    const counts = Object.entries(report.checked).map(([k, v]) => `${k} ${v}`).join(', ');
    process.stdout.write(report.problems.length === 0
      ? `no problems found (checked: ${counts})\n`
      : `${report.problems.length} problem(s), ${report.problems.length - left.length} fixed (checked: ${counts})\n`);
  }
  if (left.length > 0) throw new CommandError(`${left.length} problem(s) left${values.fix ? '' : ' (run with --fix to repair what can be repaired)'}`);
}
