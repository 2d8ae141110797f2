/** Table or JSON output for the resource commands. */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  const cells = rows.map((r) => columns.map((c) => format(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]): string =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write([line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n') + '\n');
}

function format(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k}=${format(x)}`)
      .join(',');
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
