// Timestamps as the API shows them: RFC 3339 in UTC, whole seconds (e.g. 2026-11-22T10:42:52Z).

export function toRfc3339(date: Date | number): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function nowRfc3339(): string {
  return toRfc3339(Date.now());
}
