// Gitea's /admin/cron: the periodic tasks the enabled plugins really run (registered through the admin service),
// listed with their schedule and history, and run once on request.
import type { Logger } from 'pino';
import type { Reply, RequestContext } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { AdminService, CronTask } from '../../schemas/contracts/admin.js';

export const CronSchema = {
  $id: 'forgekit/Cron',
  type: 'object',
  properties: {
    name: { type: 'string' },
    schedule: { type: 'string' },
    // Never the zero time: null until it has run (prev) or while nothing is scheduled (next).
    next: { type: ['string', 'null'] },
    prev: { type: ['string', 'null'] },
    exec_times: { type: 'integer' },
  },
  required: ['name', 'schedule', 'next', 'prev', 'exec_times'],
} as const;

const iso = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : null);

export class CronRegistry implements AdminService {
  private readonly tasks = new Map<string, CronTask>();
  /** Runs started on request and not finished (one at a time per task, as Gitea's task lock). */
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly log: Logger) {}

  addCronTask(task: CronTask): void {
    if (this.tasks.has(task.name)) throw new Error(`cron task "${task.name}" is registered twice`);
    this.tasks.set(task.name, task);
  }

  list(): CronTask[] {
    return [...this.tasks.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): CronTask | undefined {
    return this.tasks.get(name);
  }

  /** Starts a run in the background (the request does not wait for it); a run already going is not doubled. */
  start(task: CronTask): void {
    if (this.running.has(task.name)) return;
    const run = task.run()
      .catch((err) => this.log.error({ err, task: task.name }, 'cron task failed'))
      .finally(() => this.running.delete(task.name));
    this.running.set(task.name, run);
  }

  /** Waits for runs started on request (shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }
}

function registry(rc: RequestContext): CronRegistry {
  return rc.app.services.get('admin') as CronRegistry;
}

/** GET /admin/cron — the tasks in name order, paged. */
export async function listCron(rc: RequestContext<unknown, { page?: number; limit?: number }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  const all = registry(rc).list();
  const body = all.slice(win.skip, win.skip + win.limit).map((t) => ({
    name: t.name, schedule: t.schedule, next: iso(t.next()), prev: iso(t.prev()), exec_times: t.execTimes(),
  }));
  return { status: 200, body, headers: pageHeaders(rc, all.length, win) };
}

/** POST /admin/cron/{task} — 204 once the run has started (it goes on in the background, as in Gitea); unknown: 404. */
export async function runCron(rc: RequestContext<{ task: string }>): Promise<Reply> {
  const task = registry(rc).get(rc.params.task);
  if (!task) throw fail.notFound();
  registry(rc).start(task);
  rc.log.info({ task: task.name, admin: rc.caller?.login }, 'cron task started by a site admin');
  return { status: 204 };
}
