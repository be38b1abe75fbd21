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
 * name order (a store query with sort + limit), `primaryTotal` its full size, and `extras` a set disjoint from
 * the primary list (e.g. private repositories the caller reaches by collaboration). Any item of the first
 * `skip + limit` positions of the union is either in `primaryHead` or in `extras`, so the page is exact.
 */
export function mergeWindow(primaryHead: Light[], primaryTotal: number, extras: Light[], skip: number, limit: number): { ids: number[]; total: number } {
  const merged = extras.length === 0 ? primaryHead : [...primaryHead, ...extras].sort(compareLight);
  return { ids: merged.slice(skip, skip + limit).map((r) => r.id), total: primaryTotal + extras.length };
}

/** Sorts in (lowerName, id) order a list that is already in lowerName order: only runs of equal names move. */
export function orderTies<T extends Light>(items: T[]): T[] {
  for (let i = 1; i < items.length; i++) {
    if (items[i]!.lowerName === items[i - 1]!.lowerName) return items.sort(compareLight);
  }
  return items;
}

/** One page of a fully loaded list. */
export function sliceSorted<T extends Light>(items: T[], skip: number, limit: number): { ids: number[]; total: number } {
  const sorted = [...items].sort(compareLight);
  return { ids: sorted.slice(skip, skip + limit).map((r) => r.id), total: items.length };
}
