// Compiled matches as generated code: one function per filter template, so its property reads and tests are its own.
//
// `filter.ts` composes a template's match from small closures. Closures made by the same function share their code,
// so every template's field reads go through the same `doc[path]` and `test(…)` sites, which see every field and
// every test of every filter the process runs: V8 leaves them megamorphic (a dictionary lookup per read, no
// inlining). A walk that checks a residual per row paid ~90 ns a row for `{$or: [{repoPrivate: false},
// {repoOwnerId: {$in: […]}, repoPrivate: true}]}`, where a hand-written predicate takes ~17 ns. So each match also
// records what it tests (a `MatchNode`), and `generatedMatch` turns the conjunction the planner asks for into one
// function whose source names the fields (`doc.repoPrivate`) and the tests inline.
//
// Only field names reach the source, as string literals (`JSON.stringify`) or checked identifiers; values stay in
// the per-query array `v`, read by slot, as the closures read them. Conditions the generator does not express
// (dotted paths, object equality, null ranges) are called as their closures (`F[i](doc, v)`). Where code cannot be
// generated (`--disallow-code-generation-from-strings`) the closures serve as before.

type Stored = Record<string, unknown>;
type Values = unknown[];
type Match = (doc: Stored, v: Values) => boolean;

/** The tests a leaf applies to the value at its field (the semantics of `filter.ts`'s tests of the same names). */
export type LeafTest = 'eqScalar' | 'eqNull' | 'member' | '$gt' | '$gte' | '$lt' | '$lte' | 'defined';

/** What a compiled match tests, for code generation. */
export type MatchNode =
  /** `test(doc[field], v[slot])`, negated when `negate`. */
  | { kind: 'leaf'; field: string; test: LeafTest; slot: number; negate: boolean }
  /** `$exists`: whether the field is defined equals the truthiness of `v[slot]`. */
  | { kind: 'exists'; field: string; slot: number }
  | { kind: 'and' | 'or'; nodes: MatchNode[] }
  /** A closure the generator calls as it is. */
  | { kind: 'fn'; match: Match };

const nodes = new WeakMap<Match, MatchNode>();

/** Records what `match` tests; returns `match`. */
export function described(match: Match, node: MatchNode): Match {
  nodes.set(match, node);
  return match;
}

/** What `match` tests (a closure without a description is called as it is). */
export function nodeOf(match: Match): MatchNode {
  return nodes.get(match) ?? { kind: 'fn', match };
}

// The helpers every generated function carries (its own copies: their call sites see only its fields' values).
// Each has the semantics of the closure test of the same name in `filter.ts`.
const HELPERS = `
const isArray = Array.isArray;
function eqScalar(x, q) { return x === q || (isArray(x) && x.includes(q)); }
function eqNull(x) { return x === null || x === undefined || (isArray(x) && x.includes(null)); }
function member(x, t) { return t(x); }
function defined(x) { return x !== undefined; }
function gt1(x, q) { return typeof x === typeof q && x > q; }
function gte1(x, q) { return typeof x === typeof q && x >= q; }
function lt1(x, q) { return typeof x === typeof q && x < q; }
function lte1(x, q) { return typeof x === typeof q && x <= q; }
function $gt(x, q) { return gt1(x, q) || (isArray(x) && x.some((e) => gt1(e, q))); }
function $gte(x, q) { return gte1(x, q) || (isArray(x) && x.some((e) => gte1(e, q))); }
function $lt(x, q) { return lt1(x, q) || (isArray(x) && x.some((e) => lt1(e, q))); }
function $lte(x, q) { return lte1(x, q) || (isArray(x) && x.some((e) => lte1(e, q))); }
`;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `doc.field` for an identifier, `doc["…"]` for any other name (a literal: never code). */
function read(field: string): string {
  return IDENTIFIER.test(field) ? `doc.${field}` : `doc[${JSON.stringify(field)}]`;
}

function emit(node: MatchNode, F: Match[]): string {
  switch (node.kind) {
    case 'leaf': {
      const call = `${node.test}(${read(node.field)}, v[${node.slot}])`;
      return node.negate ? `!${call}` : call;
    }
    case 'exists':
      return `((${read(node.field)} !== undefined) === Boolean(v[${node.slot}]))`;
    case 'and':
    case 'or':
      if (node.nodes.length === 0) return node.kind === 'and' ? 'true' : 'false';
      return `(${node.nodes.map((n) => emit(n, F)).join(node.kind === 'and' ? ' && ' : ' || ')})`;
    case 'fn':
      F.push(node.match);
      return `F[${F.length - 1}](doc, v)`;
  }
}

type Factory = (F: Match[]) => Match;
/** Factories by source: templates of the same structure share one (their reads are of the same fields). */
const factories = new Map<string, Factory>();
const MAX_FACTORIES = 4096;
let generationOff = false;

/** The conjunction of `matches` as one generated function (the closures' conjunction where code cannot be made). */
export function generatedMatch(matches: Match[], fallback: Match): Match {
  if (generationOff || matches.length === 0) return fallback;
  const F: Match[] = [];
  const node: MatchNode = matches.length === 1 ? nodeOf(matches[0]!) : { kind: 'and', nodes: matches.map(nodeOf) };
  // Nothing to inline: the closure is as good.
  if (node.kind === 'fn') return fallback;
  const body = emit(node, F);
  let factory = factories.get(body);
  if (!factory) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- field names enter only as checked identifiers or JSON literals
      factory = new Function('F', `'use strict';${HELPERS}return function generatedMatch(doc, v) { return ${body}; };`) as Factory;
    } catch (err) {
      // Only a process that disallows code generation from strings (an EvalError) falls back to closures for good;
      // anything else would be a generator bug, which must not pass silently.
      if (!(err instanceof EvalError)) throw err;
      generationOff = true;
      return fallback;
    }
    if (factories.size >= MAX_FACTORIES) factories.clear();
    factories.set(body, factory);
  }
  return factory(F);
}
