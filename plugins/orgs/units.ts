// Repository units of a team (Gitea's unit keys and access per unit) and the team permission they imply.
import type { TeamPermission, TeamRecord, TeamUnits } from '../../schemas/services.js';

/** Gitea's repository unit keys (`unit_model.AllRepoUnitTypes`), in Gitea's order. */
export const UNIT_KEYS = [
  'repo.code', 'repo.issues', 'repo.pulls', 'repo.ext_issues', 'repo.wiki', 'repo.ext_wiki',
  'repo.releases', 'repo.projects', 'repo.packages', 'repo.actions',
] as const;

/** The external tracker and wiki units only ever take read access (Gitea). */
const READ_ONLY_UNITS = new Set(['repo.ext_issues', 'repo.ext_wiki']);
const RANK = { none: 0, read: 1, write: 2, admin: 3 } as const;
type UnitMode = keyof typeof RANK;

/** Every unit at `mode` (external units at read): an admin or owner team, or a team created without units. */
export function allUnits(mode: UnitMode): TeamUnits {
  const units: TeamUnits = {};
  for (const key of UNIT_KEYS) units[key] = READ_ONLY_UNITS.has(key) && mode !== 'none' ? 'read' : mode;
  return units;
}

/** The lowest access above none among the units, external ones aside (Gitea's MinUnitAccessMode); none if all none. */
export function minUnitMode(units: TeamUnits): UnitMode {
  let min: UnitMode = 'none';
  for (const [key, mode] of Object.entries(units)) {
    if (READ_ONLY_UNITS.has(key) || mode === 'none') continue;
    if (min === 'none' || RANK[mode] < RANK[min]) min = mode;
  }
  return min;
}

/**
 * The permission and units a create or edit settles on (Gitea's CreateTeam/EditTeam): admin teams get every unit at
 * admin; below admin a units_map decides both the units and the permission (its minimum), a units list gives those
 * units at the permission, and neither keeps `current` (or every unit, for a new team).
 */
export function settleUnits(permission: TeamPermission, input: { units?: string[]; units_map?: Record<string, string> }, current?: TeamUnits):
  { permission: TeamPermission; units: TeamUnits } {
  if (permission === 'owner' || permission === 'admin') return { permission, units: allUnits('admin') };
  const map = input.units_map && Object.keys(input.units_map).length ? input.units_map : null;
  if (map) {
    const units: TeamUnits = {};
    for (const [key, mode] of Object.entries(map)) units[key] = READ_ONLY_UNITS.has(key) && mode !== 'none' ? 'read' : (mode as UnitMode);
    return { permission: minUnitMode(units), units };
  }
  if (input.units && input.units.length) {
    const units: TeamUnits = {};
    for (const key of input.units) units[key] = READ_ONLY_UNITS.has(key) && permission !== 'none' ? 'read' : (permission as UnitMode);
    return { permission, units };
  }
  return { permission, units: current ?? allUnits(permission as UnitMode) };
}

/** A stored team's units (teams stored before units existed: every unit at the team's permission). */
export function unitsOf(team: TeamRecord): TeamUnits {
  if (team.units) return fromStored(team.units);
  return allUnits(team.permission === 'owner' ? 'admin' : team.permission);
}

/** Units as stored: the store forbids dots in field names, so `repo.code` is kept as `code`. */
export function toStored(units: TeamUnits): TeamUnits {
  const out: TeamUnits = {};
  for (const [key, mode] of Object.entries(units)) out[key.replace(/^repo\./, '')] = mode;
  return out;
}

function fromStored(stored: TeamUnits): TeamUnits {
  const out: TeamUnits = {};
  for (const [key, mode] of Object.entries(stored)) out[`repo.${key}`] = mode;
  return out;
}
