// Headers the kernel adds to responses: the one place to add a header every reply must carry (security headers).
//
// Kept as flat [name, value, name, value, …] lists, the shape the reply stage hands to writeHead, so adding them costs
// a few array pushes per reply and no header object. Every kernel-written reply (handler replies and error replies)
// carries RESPONSE_HEADERS; html replies also carry HTML_RESPONSE_HEADERS. A `stream` route's response gets them set
// before its handler runs. A before-route hook that answers a request itself (a CORS preflight) writes its own.

/** On every response. */
export const RESPONSE_HEADERS: readonly string[] = Object.freeze([
  // Browsers must not guess a type other than the one declared (a JSON body sniffed as html).
  'X-Content-Type-Options', 'nosniff',
]);

/** On html responses (`type: 'html'`), after RESPONSE_HEADERS: the place for a Content-Security-Policy. */
export const HTML_RESPONSE_HEADERS: readonly string[] = Object.freeze([]);

/** Appends a flat header list to another (the reply's own list). */
export function pushHeaders(target: Array<string | number | readonly string[]>, list: readonly string[]): void {
  for (let i = 0; i < list.length; i++) target.push(list[i]!);
}

/** Sets a flat header list on a response (stream routes, which write their own head). */
export function setHeaders(res: { setHeader(name: string, value: string): unknown }, list: readonly string[]): void {
  for (let i = 0; i < list.length; i += 2) res.setHeader(list[i]!, list[i + 1]!);
}
