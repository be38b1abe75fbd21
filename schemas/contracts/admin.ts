// The `admin` plugin's service: the registry of periodic tasks site admins list and run (Gitea's /admin/cron).
// A plugin that runs something on a timer registers it here (when the admin plugin is enabled) and keeps its own timer.

/** A periodic task as a plugin runs it; the admin plugin only lists it and runs it on request. */
export interface CronTask {
  /** Gitea's task name where Gitea has the task (e.g. `update_mirrors`). */
  name: string;
  /** Gitea's schedule notation, e.g. `@every 1m`. */
  schedule: string;
  /** When the plugin's timer runs it next (null: not scheduled). */
  next(): Date | null;
  /** When it last ran, by the timer or on request (null: never yet). */
  prev(): Date | null;
  /** How many times it ran since the server started. */
  execTimes(): number;
  /** One run now; resolves when the run is over. */
  run(): Promise<void>;
}

export interface AdminService {
  /** Registers a periodic task (a name registered twice is a boot error). */
  addCronTask(task: CronTask): void;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    admin: AdminService;
  }
}
