// A first-come, first-served limit on how many requests of one route are handled at once. The kernel enters it once
// the request's body has been read as bytes and before the body is parsed, so requests that wait hold only their raw
// bytes (off the JS heap) instead of parsed strings and objects that live long enough to be promoted to V8's old
// generation. A body still arriving does not hold a place: slow senders cannot block the route.

export interface Gate {
  readonly limit: number;
  /** Takes a place: `undefined` when one is free now, otherwise a promise that resolves once it is this caller's. */
  enter(): Promise<void> | undefined;
  /** Gives the place back; the longest-waiting caller takes it over. Call once per `enter`. */
  leave(): void;
  /** Places taken (at most `limit`) and callers waiting. */
  readonly active: number;
  readonly waiting: number;
}

export function createGate(limit: number): Gate {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a gate needs a limit of at least 1, not ${limit}`);
  let active = 0;
  // A queue with a moving head: shift() on a long array copies it.
  let queue: Array<() => void> = [];
  let head = 0;
  return {
    limit,
    enter() {
      if (active < limit) {
        active++;
        return undefined;
      }
      return new Promise<void>((resolve) => queue.push(resolve));
    },
    leave() {
      if (head < queue.length) {
        const next = queue[head]!;
        queue[head++] = undefined as unknown as () => void;
        if (head > 1024 && head * 2 > queue.length) {
          queue = queue.slice(head);
          head = 0;
        }
        next(); // the place passes on: `active` stays the same
        return;
      }
      if (active === 0) throw new Error('gate left more often than entered');
      active--;
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length - head;
    },
  };
}
