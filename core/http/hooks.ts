// The kernel's extension points (`ctx.kernel` of every plugin): the compiled route list and its shared schemas, a
// stage before routing, an observer of finished requests and work that goes on after the boot. Several registrations of a kind are composed into one function when registered,
// so the dispatcher makes one null check per request and walks no list (nothing at all when nobody registered).
import type { Logger } from 'pino';
import { BackgroundWork } from '../background.js';
import type { BeforeRouteHook, JsonSchema, KernelHooks, RequestObserver, RouteInfo } from '../plugin.js';

export class Hooks implements KernelHooks {
  /** The composed before-route stage, or null. Read by the dispatcher on every request. */
  beforeRouteHook: BeforeRouteHook | null = null;
  /** The composed finished-request observer, or null. Read by the dispatcher on every request. */
  observer: RequestObserver | null = null;
  private list: readonly RouteInfo[] = [];
  private shared: readonly JsonSchema[] = [];
  /** What `background` registered (read by the kernel's `Forge.settled`). */
  readonly backgroundWork: BackgroundWork;

  constructor(private readonly log: Logger) {
    this.backgroundWork = new BackgroundWork(log);
  }

  /** Set once, when the routes are compiled (before any plugin starts), with the shared schemas they use. */
  setRoutes(list: readonly RouteInfo[], schemas: readonly JsonSchema[]): void {
    this.list = list;
    this.shared = Object.freeze([...schemas]);
  }

  routes(): readonly RouteInfo[] {
    return this.list;
  }

  schemas(): readonly JsonSchema[] {
    return this.shared;
  }

  beforeRoute(hook: BeforeRouteHook): void {
    const previous = this.beforeRouteHook;
    this.beforeRouteHook = previous === null ? hook : (req, res, info) => previous(req, res, info) || hook(req, res, info);
  }

  onRequestFinished(observer: RequestObserver): void {
    const log = this.log;
    // An observer's failure is logged and never reaches the request (its reply has already been handed over).
    const guarded: RequestObserver = (request) => {
      try {
        observer(request);
      } catch (err) {
        log.error({ err }, 'request observer failed');
      }
    };
    const previous = this.observer;
    this.observer = previous === null ? guarded : (request) => { previous(request); guarded(request); };
  }

  background(name: string, work: Promise<unknown>): void {
    this.backgroundWork.register(name, work);
  }
}
