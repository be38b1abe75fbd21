// Ordering and paging of repository lists: name order (case-insensitive, ties by id), and one page of the union
// of a sorted store query with a small set of extra repositories, without loading the whole list.

export interface Light {
  id: number;
  lowerName: string;
}

export function compareLight(a: Light, b: Light): number {
  if (a.lowerName < b.lowerName) return -1;
  if (a.lowerName > b.lowerName) return 1;
  return a.id - b.id;
}

/**
 * One page of `primary ∪ extras`, where `primaryHead` is the first `skip + limit` items of the primary list in
 * (lowerName, id) order (a store query with sort + limit), `primaryTotal` its full size, and `extras` a set disjoint
 * from the primary list (e.g. private repositories the caller reaches by collaboration), in any order. Any item of
 * the first `skip + limit` positions of the union is either in `primaryHead` or in `extras`, so the page is exact.
 * The page's items are the inputs themselves (head records or extras). A merge of the sorted head with the few
 * extras, sorted alone: the head is not sorted again.
 */
export function mergeWindow<T extends Light>(primaryHead: T[], primaryTotal: number, extras: T[], skip: number, limit: number): { items: T[]; total: number } {
  const total = primaryTotal + extras.length;
  const end = skip + limit;
  if (extras.length === 0) return { items: primaryHead.slice(skip, end), total };
  const sorted = extras.length > 1 ? [...extras].sort(compareLight) : extras;
  const items: T[] = [];
  let h = 0;
  let e = 0;
  for (let at = 0; at < end; at++) {
    const head = primaryHead[h];
    const extra = sorted[e];
    let next: T;
    if (head === undefined) {
      if (extra === undefined) break;
      next = extra;
      e++;
    } else if (extra !== undefined && compareLight(extra, head) < 0) {
      next = extra;
      e++;
    } else {
      next = head;
      h++;
    }
    if (at >= skip) items.push(next);
  }
  return { items, total };
}

/**
 * Puts in (lowerName, id) order, in place, a list that is already in lowerName order: only runs of equal names move
 * (each sorted by id alone; most runs are one item).
 */
export function orderTies<T extends Light>(items: T[]): T[] {
  let start = 0;
  for (let i = 1; i <= items.length; i++) {
    if (i < items.length && items[i]!.lowerName === items[start]!.lowerName) continue;
    // Insertion sort of the run [start, i) by id: runs of tied names are short.
    for (let j = start + 1; j < i; j++) {
      const item = items[j]!;
      let k = j - 1;
      while (k >= start && items[k]!.id > item.id) {
        items[k + 1] = items[k]!;
        k--;
      }
      items[k + 1] = item;
    }
    start = i;
  }
  return items;
}

/** One page of a fully loaded list. */
export function sliceSorted<T extends Light>(items: T[], skip: number, limit: number): { ids: number[]; total: number } {
  const sorted = [...items].sort(compareLight);
  return { ids: sorted.slice(skip, skip + limit).map((r) => r.id), total: items.length };
}
