// The output format of `query` when --format is not given, as clickhouse-client chooses it: a table
// for a person at a terminal, plain tab-separated values for a pipe or a capture, so that
// `n=$(./run query "SELECT count() FROM …")` gives a number.
export function queryOutputFormat(chosen: string | undefined, stdoutIsTerminal: boolean): string {
  if (chosen) return chosen
  return stdoutIsTerminal ? 'PrettyCompact' : 'TabSeparated'
}
